import Dispatch
import StatecraftAtomics
import StatecraftPrimitives

/// The part of a store that lives on the main queue: notification rounds, the mark that one is
/// due, and the actions subscribers dispatch during a round.
///
/// A *round* delivers the newest committed state to every subscription, then processes the
/// actions its subscribers dispatched (C4). If no other thread committed meanwhile, the state
/// those actions made is delivered at once, as a follow-up round of the same chain; otherwise the
/// round ends and schedules another, so other threads' traffic never holds the main queue for
/// longer than one round (C5, C7).
@usableFromInline
final class MainLoop<State: Sendable>: Sendable {
  /// Whether a round is due (`signals`: any thread sets it; the round clears it before it reads
  /// the state, so a commit after that read schedules another round), whether one runs
  /// (`mainFlags`, for `dispatch`, which must not ask for the main queue on every call), and the
  /// time before which no scheduled round starts (`earliestRound`: the last one's start plus
  /// `RoundPacing.interval`, C7).
  @usableFromInline let _words: StoreWords
  @usableFromInline let _pacing: RoundPacing

  /// What the main queue keeps between and during rounds.
  @usableFromInline @frozen
  struct _Rounds {
    @usableFromInline var isRunning = false
    /// Set when a scheduled round found this one running: the running one posts it at its end.
    @usableFromInline var isRoundRequested = false
    @usableFromInline var deliveredVersion: UInt64 = 0
    /// The registry's subscriptions, fed in each round's two phases.
    @usableFromInline var pass = Pass<State>()

    @inlinable
    init() {}
  }

  // Touched only on the main queue, which every caller has checked (`MainQueue.isCurrent`) or
  // runs on (a block posted there): the rounds are nonisolated so that the dispatch path, which
  // knows it is on the main queue, calls them without a check of its own. Unchecked, because
  // a round's accesses never overlap.
  @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var _rounds = _Rounds()

  @inlinable
  var _isRunning: Bool {
    get { _rounds.isRunning }
    set {
      _rounds.isRunning = newValue
      _words.setMainFlag(StoreWords.running, newValue)
    }
  }

  @usableFromInline
  init(pacing: RoundPacing, words: StoreWords) {
    _pacing = pacing
    _words = words
  }

  deinit {
    _rounds.pass.deallocate()
  }

  // MARK: Scheduling

  /// Makes sure a round runs on the main queue soon; at most one waits at a time.
  @inlinable
  func scheduleRound(_ core: StoreCore<State>) {
    guard !_words.isRoundDue, _words.markRoundDue() else { return }
    postRound(core)
  }

  /// Posts a round to the main queue, for when the pacing allows (C7).
  @inlinable
  func postRound(_ core: StoreCore<State>) {
    let now = _pacing._now()
    let earliest = _words.earliestRound.load(ordering: .relaxed)
    _pacing._post(earliest > now ? earliest - now : 0) { [weak core] in
      guard let core else { return }
      core._mainLoop.runScheduledRound(core)
    }
  }

  /// Runs a round that `postRound` posted, after noting when the next may start.
  @usableFromInline
  func runScheduledRound(_ core: StoreCore<State>) {
    _words.earliestRound.store(_pacing._now() &+ RoundPacing.interval, ordering: .relaxed)
    runRound(core)
  }

  // MARK: Rounds

  /// Delivers the newest committed state if it is newer than the last delivered, then runs the
  /// chain of actions subscribers dispatch.
  ///
  /// Does nothing when a round already runs: that round delivers the newest state.
  ///
  /// - Parameters:
  ///   - core: The store whose subscribers the round notifies.
  ///   - committed: The state a dispatch on the main queue just committed, and its version,
  ///     delivered instead of the newest (C7); `nil` to read the newest.
  @inlinable
  func runRound(
    _ core: StoreCore<State>, committed: consuming Reduction<State>.Snapshot? = nil
  ) {
    assert(MainQueue.isCurrent, "a round runs only on the main queue")
    guard !_isRunning else {
      // Started by a run loop that a subscriber runs inside the running round (a modal alert
      // shown from `newState`): not nested (C6). The mark stays set, so commits meanwhile post
      // no round of their own; the running round posts this one when it ends (C7).
      _rounds.isRoundRequested = true
      return
    }
    if _words.isRoundDue { _words.clearRoundDue() }
    guard !_words.isBatchOpenOnAnotherThread else { return }  // its end schedules a round
    _isRunning = true
    defer { endRound(core) }
    deliverNewest(core, ifVersion: nil, committed: consume committed)
    // What subscribers dispatched waits on the round lane; this thread queued it, so a relaxed
    // load sees it.
    if _words.signals.load(ordering: .relaxed) & 0xFFFF_FFFE != 0 { runChain(core) }
  }

  /// Ends a round, and posts the round a run loop inside it asked for.
  @inlinable
  func endRound(_ core: StoreCore<State>) {
    _isRunning = false
    if _rounds.isRoundRequested {
      _rounds.isRoundRequested = false
      postRound(core)
    }
  }

  /// Delivers the state a new subscription starts from (`deliver` hands it over), as a round
  /// of its own unless one runs.
  @inlinable
  func deliverFirst(_ core: StoreCore<State>, _ deliver: () -> Void) {
    _ = DeliveryPass.begin()  // the state may be newer than the running round's
    guard !_isRunning else {
      deliver()  // part of the running round; its dispatches queue there
      return
    }
    _isRunning = true
    defer { endRound(core) }
    deliver()
    // What the new subscriber dispatched waits on the round lane, queued by this thread.
    if _words.signals.load(ordering: .relaxed) & 0xFFFF_FFFE != 0 { runChain(core) }
  }

  /// Processes the actions subscribers dispatched, delivering the state they made, until none
  /// are left or another thread's commit mixes in (C4, C11).
  @usableFromInline
  func runChain(_ core: StoreCore<State>) {
    let me = currentThreadID()
    var length = 0
    while var work = core.popWork(from: .round) {
      var version: UInt64 = 0
      while true {
        length += 1
        if length > core._reentrantDispatchLimit {
          Misuse.runaway(work.firstAction, limit: core._reentrantDispatchLimit)
        }
        version = core.perform(work, thread: me)
        guard let next = core.popWork(from: .round) else { break }
        work = next
      }
      guard deliverNewest(core, ifVersion: version) else {
        // Another thread committed since: its state is not this chain's to deliver now.
        scheduleRound(core)
        return
      }
    }
  }

  /// Delivers the newest state, or `committed` when given, if it is newer than the last
  /// delivered and, when `expected` is given, if it is that version.
  ///
  /// In two phases (C13): first every subscription's steps (selectors, filters) run on the state
  /// inside the state lock, and each keeps the value its subscriber is to receive; then, with the
  /// lock released and no reference to the state left, the subscribers receive those values. A
  /// commit meanwhile finds the state unshared and changes it in place. `committed` (C7) is a
  /// copy already; it is released before the second phase.
  ///
  /// Returns `false` only when `expected` did not match.
  @inlinable
  @discardableResult
  func deliverNewest(
    _ core: StoreCore<State>, ifVersion expected: UInt64?,
    committed: consuming Reduction<State>.Snapshot? = nil
  ) -> Bool {
    let generation = _words.registryGeneration
    if generation != _rounds.pass.entriesGeneration {
      _rounds.pass.refresh(generation: generation) {
        core._books.withLock { ($0.registry._entries, $0.registry._addresses) }
      }
    }
    var selection = Selection.unchanged
    if let (state, version) = committed.take() {
      // Marked as the locked path marks it, so that a selector calling the store stops in
      // either path (C11).
      let outer = sc_begin_reducing(
        UnsafeRawPointer(bitPattern: address(of: core._reduction)), sc_selecting_marker())
      selection = select(state, version: version, ifVersion: expected)
      sc_end_reducing(outer)
    } else {
      selection =
        core._reduction.withCommittedState { state, version in
          select(state, version: version, ifVersion: expected)
        } ?? .unchanged
    }
    switch selection {
    case .otherVersion: return false
    case .unchanged: return true
    case .selected: break
    }
    _rounds.pass.deliverHeld { core.remove($0) }
    return true
  }

  @usableFromInline
  enum Selection {
    /// The state is not newer than the last delivered: nothing to do.
    case unchanged
    /// The state is not the version the caller expected.
    case otherVersion
    /// The steps ran; the pass holds the subscriptions with work for the second phase.
    case selected
  }

  /// A round's first phase: runs every subscription's steps on `state`.
  @inlinable
  func select(_ state: State, version: UInt64, ifVersion expected: UInt64?) -> Selection {
    if let expected, version != expected { return .otherVersion }
    guard version > _rounds.deliveredVersion else { return .unchanged }
    _rounds.deliveredVersion = version
    _ = _rounds.pass.select(state, version: version)
    return .selected
  }

  /// Drops the copy of the registry's arrays kept between rounds.
  ///
  /// Called before a subscribe on the main queue: with the copy kept, the registry's append would
  /// copy every standing entry, O(n) a subscribe. A subscribe off the main queue (Swift 5 code)
  /// still pays that copy.
  @inlinable
  func forgetSubscriptions() {
    _rounds.pass.forget()
  }

  /// Makes room in the rounds' list of held values for `count` subscriptions, unless a round
  /// runs: its second phase may be reading the list (its first phase makes room itself).
  @inlinable
  func reserveHeld(_ count: Int) {
    if !_isRunning { _rounds.pass.reserveHeld(count) }
  }

  /// The version of the state the running round delivers; for scopes, whose subscriptions it
  /// feeds through one subscription of their own.
  var deliveringVersion: UInt64 { _rounds.deliveredVersion }
}

/// When and how a round for other threads' commits is posted to the main queue (C7): at once if
/// none started in the last millisecond, else at the end of that millisecond.
///
/// A value of closures, so that tests can replace the clock and the posting and check the pacing
/// without waiting for time to pass. `MainLoop` owns the time before which the next round may
/// start.
///
/// Without pacing, a burst from other threads with the main queue free would run rounds back to
/// back, each costing a dispatching thread a wake-up of the main queue and the round a turn at
/// the state lock.
@usableFromInline
struct RoundPacing: Sendable {
  /// The shortest time between the starts of two scheduled rounds, in nanoseconds.
  @usableFromInline static let interval: UInt64 = 1_000_000

  /// The time now, in nanoseconds, on a clock that only moves forward.
  @usableFromInline let _now: @Sendable () -> UInt64
  /// Runs a round on the main queue after a delay in nanoseconds (0: as soon as it can).
  @usableFromInline let _post: @Sendable (UInt64, @escaping @Sendable () -> Void) -> Void

  @usableFromInline
  init(
    now: @escaping @Sendable () -> UInt64,
    post: @escaping @Sendable (UInt64, @escaping @Sendable () -> Void) -> Void
  ) {
    _now = now
    _post = post
  }

  /// The main dispatch queue, and the clock its `asyncAfter` counts with.
  @usableFromInline
  static let mainQueue = RoundPacing(
    now: { DispatchTime.now().uptimeNanoseconds },
    post: { delay, round in
      if delay == 0 {
        DispatchQueue.main.async(execute: round)
      } else {
        DispatchQueue.main.asyncAfter(
          deadline: .now() + .nanoseconds(Int(clamping: delay)), execute: round)
      }
    })
}
