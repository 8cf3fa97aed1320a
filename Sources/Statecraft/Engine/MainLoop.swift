import Dispatch
import StatecraftAtomics

// Inlinable, so that the app compiles the path of an action for its own `State`: built
// generic in the library, a main-thread dispatch with one subscriber took 10,772 instructions
// instead of 1,099 and allocated, a dispatch from another thread 1,637 instead of 339
// (callgrind, Benchmarks/README.md, "Why the engine is inlinable").

/// The part of a store that lives on the main queue: notification rounds, the mark that one is
/// due, and the actions subscribers dispatch during a round.
///
/// A *round* delivers the newest committed state to every subscription, then processes the
/// actions its subscribers dispatched (C4). If no other thread committed meanwhile, the state
/// those actions made is delivered at once, as a follow-up round of the same chain; otherwise the
/// round ends and schedules another, so other threads' traffic never holds the main queue for
/// longer than one round (C5, C7).
@MainActor
@usableFromInline
final class MainLoop<State: Sendable> {
  @usableFromInline
  enum Work {
    case action(any Action)
    /// The actions of a `batch` called during a round, reduced together.
    case batch([any Action])
  }

  /// Whether a round is scheduled on the main queue and has not started yet.
  ///
  /// Any thread sets it; the round clears it before it reads the state, so a commit after that
  /// read schedules another round.
  @usableFromInline nonisolated let _isRoundDue = AtomicCell<Bool>(false)
  /// Mirrors `isRunning` for `dispatch`, which must not ask for the main queue on every call.
  @usableFromInline nonisolated let _isRunningMirror = AtomicCell<Bool>(false)
  /// The time (on `_pacing`'s clock) before which no scheduled round starts: the last one's start
  /// plus `RoundPacing.interval` (C7).
  @usableFromInline nonisolated let _earliestRound = AtomicCell<UInt64>(0)
  @usableFromInline nonisolated let _pacing: RoundPacing

  /// What the main queue keeps between and during rounds.
  @usableFromInline
  struct _Rounds {
    @usableFromInline var isRunning = false
    /// Set when a scheduled round found this one running: the running one posts it at its end.
    @usableFromInline var isRoundRequested = false
    @usableFromInline var queued = FIFO<Work>()
    /// The actions of a `batch` whose body runs during a round.
    @usableFromInline var batchActions: [any Action]?
    @usableFromInline var deliveredVersion: UInt64 = 0
    /// The registry's entries and their addresses as of `entriesGeneration`.
    ///
    /// Read again only when they changed, which saves a lock round trip and two arrays'
    /// reference counts a round (57 instructions, callgrind). Forgotten before a subscribe on the
    /// main queue, so that the registry appends to arrays it alone holds.
    @usableFromInline var entries: [SubscriptionEntry<State>] = []
    @usableFromInline var addresses: [UInt] = []
    @usableFromInline var entriesGeneration: UInt64 = .max
    /// The indices in `entries` whose steps held a value in the round's first phase.
    ///
    /// `heldCount` of them, for the second phase. Allocated on subscribing, so that a round does
    /// not; a raw buffer, because an array's append checks its uniqueness each time.
    @usableFromInline var held = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    @usableFromInline var heldCount = 0

    @inlinable
    init() {}
  }

  // The rounds are run by code inlined into the app, so that it is specialized for the app's
  // `State`: unspecialized, a dispatch with one subscriber spent most of its 1.2-2 µs in generic
  // metadata lookups. A slot rather than stored vars: each access to a class's stored var is
  // checked for exclusivity at run time (4 checks a dispatch, callgrind).
  // nonisolated(unsafe): for `deinit`, which frees the held buffer; otherwise only the main
  // queue touches it.
  @usableFromInline nonisolated(unsafe) let _rounds = Slot(_Rounds())

  @usableFromInline
  var _isRunning: Bool {
    get { _rounds._pointer.pointee.isRunning }
    set {
      _rounds._pointer.pointee.isRunning = newValue
      _isRunningMirror.store(newValue, ordering: .relaxed)
    }
  }

  private var batchActions: [any Action]? {
    get { _rounds._pointer.pointee.batchActions }
    _modify { yield &_rounds._pointer.pointee.batchActions }
  }

  @usableFromInline
  nonisolated init(pacing: RoundPacing) {
    _pacing = pacing
  }

  deinit {
    _rounds._pointer.pointee.held.deallocate()
  }

  // MARK: Scheduling

  /// Makes sure a round runs on the main queue soon; at most one waits at a time.
  @inlinable
  nonisolated func scheduleRound(_ core: StoreCore<State>) {
    guard !_isRoundDue.load(ordering: .relaxed),
      !_isRoundDue.exchange(true, ordering: .sequentiallyConsistent)
    else { return }
    postRound(core)
  }

  /// Posts a round to the main queue, for when the pacing allows (C7).
  @inlinable
  nonisolated func postRound(_ core: StoreCore<State>) {
    let now = _pacing._now()
    let earliest = _earliestRound.load(ordering: .relaxed)
    _pacing._post(earliest > now ? earliest - now : 0) { [weak core] in
      guard let core else { return }
      MainActor.assumeIsolated { core._mainLoop.runScheduledRound(core) }
    }
  }

  /// Runs a round that `postRound` posted, after noting when the next may start.
  @usableFromInline
  func runScheduledRound(_ core: StoreCore<State>) {
    _earliestRound.store(_pacing._now() &+ RoundPacing.interval, ordering: .relaxed)
    runRound(core)
  }

  /// Queues `action` if a round is running (C4).
  ///
  /// Returns whether it did.
  func enqueueIfRunning(_ action: any Action) -> Bool {
    guard _isRunning else { return false }
    if batchActions != nil {
      batchActions?.append(action)
    } else {
      _rounds._pointer.pointee.queued.append(.action(action))
    }
    return true
  }

  /// Starts collecting the actions of a `batch` body called during a round.
  ///
  /// Returns `false` if no round runs, or if a batch already collects (the inner one joins it).
  func beginBatchIfRunning() -> Bool {
    guard _isRunning, batchActions == nil else { return false }
    batchActions = []
    return true
  }

  /// Queues the collected actions of the batch as one piece of work.
  func endBatch() {
    let actions = batchActions ?? []
    batchActions = nil
    if !actions.isEmpty { _rounds._pointer.pointee.queued.append(.batch(actions)) }
  }

  /// Whether a round runs and collects a batch: a batch inside it joins.
  var isCollectingBatch: Bool {
    _isRunning && batchActions != nil
  }

  // MARK: Rounds

  /// Runs a round from code that has checked that it runs on the main queue.
  ///
  /// `MainActor.assumeIsolated` would check again and allocate a closure context on every call
  /// (callgrind: one allocation and about 370 instructions a dispatch). The conversion drops
  /// only the isolation from the function's type, which does not change how it is called.
  @inlinable
  nonisolated static func runRoundOnMainQueue(
    _ core: StoreCore<State>, committed: consuming Reduction<State>.Snapshot? = nil
  ) {
    // `committed` is handed on, not copied, down to the round, which releases it before its
    // subscribers run (C13).
    let run: @MainActor (StoreCore<State>, consuming Reduction<State>.Snapshot?) -> Void = {
      core, committed in core._mainLoop.runRound(core, committed: consume committed)
    }
    unsafeBitCast(run, to: _RunRound.self)(core, consume committed)
  }

  /// `runRound`'s type without its isolation.
  @usableFromInline
  typealias _RunRound = (StoreCore<State>, consuming Reduction<State>.Snapshot?) -> Void

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
    guard !_isRunning else {
      // Started by a run loop that a subscriber runs inside the running round (a modal alert
      // shown from `newState`): not nested (C6). The mark stays set, so commits meanwhile post
      // no round of their own; the running round posts this one when it ends (C7).
      _rounds._pointer.pointee.isRoundRequested = true
      return
    }
    if _isRoundDue.load(ordering: .relaxed) {
      _isRoundDue.store(false, ordering: .sequentiallyConsistent)
    }
    guard !core.isBatchOpenOnAnotherThread else { return }  // its end schedules a round
    _isRunning = true
    defer { endRound(core) }
    deliverNewest(core, ifVersion: nil, committed: consume committed)
    if !_rounds._pointer.pointee.queued.isEmpty { runChain(core) }
  }

  /// Ends a round, and posts the round a run loop inside it asked for.
  @inlinable
  func endRound(_ core: StoreCore<State>) {
    _isRunning = false
    if _rounds._pointer.pointee.isRoundRequested {
      _rounds._pointer.pointee.isRoundRequested = false
      postRound(core)
    }
  }

  /// Delivers the state a new subscription starts from, as a round of its own unless one runs.
  func deliverFirst(
    _ core: StoreCore<State>, to entry: SubscriptionEntry<State>, _ state: State, version: UInt64
  ) {
    _ = DeliveryPass.begin()  // the state may be newer than the running round's
    guard !_isRunning else {
      // Part of the running round; its dispatches queue there.
      entry.deliverInitial(state, version: version)
      return
    }
    _isRunning = true
    defer { endRound(core) }
    entry.deliverInitial(state, version: version)
    runChain(core)
  }

  /// Processes the actions subscribers dispatched, delivering the state they made, until none
  /// are left or another thread's commit mixes in (C4, C11).
  @usableFromInline
  func runChain(_ core: StoreCore<State>) {
    var length = 0
    while !_rounds._pointer.pointee.queued.isEmpty {
      var version: UInt64 = 0
      while let work = _rounds._pointer.pointee.queued.popFirst() {
        length += 1
        if length > core._reentrantDispatchLimit {
          Misuse.runaway(work.firstAction, limit: core._reentrantDispatchLimit)
        }
        version = core.processQueued(work)
      }
      guard deliverNewest(core, ifVersion: version) else {
        // Another thread committed since: its state is not this chain's to deliver now.
        scheduleRound(core)
        return
      }
    }
  }

  /// Drops the copy of the registry's arrays kept between rounds.
  ///
  /// Called before a subscribe on the main queue: with the copy kept, the registry's append would
  /// copy every standing entry (O(n) a subscribe, about 400,000 instructions with 10,000
  /// standing, callgrind). A subscribe off the main queue (Swift 5 code) still pays that copy.
  func forgetSubscriptions() {
    _rounds._pointer.pointee.entries = []
    _rounds._pointer.pointee.addresses = []
    _rounds._pointer.pointee.entriesGeneration = .max
  }

  /// Makes room for the indices of `count` subscriptions in the rounds' list of held values.
  ///
  /// Called on subscribing between rounds, so that rounds do not allocate, and by a round's
  /// first phase when a subscription came during a round or off the main queue. Never during a
  /// round's second phase, which reads the buffer.
  @usableFromInline
  func reserveHeld(_ count: Int) {
    let held = _rounds._pointer.pointee.held
    guard held.count < count else { return }
    _rounds._pointer.pointee.held = .allocate(capacity: Swift.max(count, 2 * held.count))
    held.deallocate()
  }

  /// Delivers the newest state, or `committed` when given, if it is newer than the last
  /// delivered and, when `expected` is given, if it is that version.
  ///
  /// In two phases (C13): first every subscription's steps (selectors, filters) run on the state
  /// inside the state lock, and each keeps the value its subscriber is to receive; then, with the
  /// lock released and no reference to the state left, the subscribers receive those values. A
  /// commit meanwhile finds the state unshared and changes it in place. `committed` (C7) and a
  /// scope's slice are copies already; they are released before the second phase.
  ///
  /// Returns `false` only when `expected` did not match.
  @inlinable
  @discardableResult
  func deliverNewest(
    _ core: StoreCore<State>, ifVersion expected: UInt64?,
    committed: consuming Reduction<State>.Snapshot? = nil
  ) -> Bool {
    let generation = core._entriesGeneration.load(ordering: .acquiring)
    if generation != _rounds._pointer.pointee.entriesGeneration {
      (_rounds._pointer.pointee.entries, _rounds._pointer.pointee.addresses) =
        core._registry.withLock { ($0._entries, $0._addresses) }
      _rounds._pointer.pointee.entriesGeneration = generation
    }
    // Kept for both phases: the registry changes its own copy, and a subscriber that subscribes
    // during the second phase makes the loop forget its copy.
    let entries = _rounds._pointer.pointee.entries
    let addresses = _rounds._pointer.pointee.addresses
    let selection: Selection
    if committed != nil || core._reduction._source != nil {
      if let (state, version) = committed.take() ?? core._reduction.snapshot {
        // Marked as the locked path marks it, so that a selector calling the store stops in
        // either path (C11).
        let outer = sc_begin_reducing(
          Unmanaged.passUnretained(core._reduction).toOpaque(), sc_selecting_marker())
        selection = select(state, version: version, ifVersion: expected, addresses)
        sc_end_reducing(outer)
      } else {
        selection = .unchanged
      }
    } else {
      selection =
        core._reduction.withCommittedState { state, version in
          select(state, version: version, ifVersion: expected, addresses)
        } ?? .unchanged
    }
    switch selection {
    case .otherVersion: return false
    case .unchanged: return true
    case .selected: break
    }
    let held = UnsafeBufferPointer(
      rebasing: _rounds._pointer.pointee.held[..<_rounds._pointer.pointee.heldCount])
    // `entries` keeps every entry alive for the pass, so the loops borrow them unretained: a
    // retain and a release per subscriber were 40 of the 141 instructions each of 1,000
    // subscribers cost (callgrind). The closures are `@Sendable`, so not checked for the main
    // actor at run time on each call.
    for index in held {
      let entry = Unmanaged<SubscriptionEntry<State>>.fromOpaque(
        UnsafeRawPointer(bitPattern: addresses[index]).unsafelyUnwrapped)
      let delivered = entry._withUnsafeGuaranteedRef { @Sendable entry in entry.deliverHeld() }
      if !delivered {
        core.remove(entries[index])  // the subscriber was found deallocated
      }
    }
    return true
  }

  @usableFromInline
  enum Selection {
    /// The state is not newer than the last delivered: nothing to do.
    case unchanged
    /// The state is not the version the caller expected.
    case otherVersion
    /// The steps ran; `held` lists the subscriptions with work for the second phase.
    case selected
  }

  /// A round's first phase: runs every subscription's steps on `state`, noting in `held` those
  /// that kept a value for their subscriber.
  @inlinable
  func select(
    _ state: State, version: UInt64, ifVersion expected: UInt64?, _ addresses: [UInt]
  ) -> Selection {
    if let expected, version != expected { return .otherVersion }
    guard version > _rounds._pointer.pointee.deliveredVersion else { return .unchanged }
    _rounds._pointer.pointee.deliveredVersion = version
    if _rounds._pointer.pointee.held.count < addresses.count {
      reserveHeld(addresses.count)  // subscribed off the main queue (C15)
    }
    let held = _rounds._pointer.pointee.held
    var count = 0
    let pass = DeliveryPass.begin()
    for index in addresses.indices {
      DeliveryPass.resume(pass)
      let entry = Unmanaged<SubscriptionEntry<State>>.fromOpaque(
        UnsafeRawPointer(bitPattern: addresses[index]).unsafelyUnwrapped)
      let holds = entry._withUnsafeGuaranteedRef { @Sendable entry in
        entry.select(state, version: version)
      }
      if holds {
        held[count] = index
        count += 1
      }
    }
    _rounds._pointer.pointee.heldCount = count
    return .selected
  }
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
/// the state lock (Benchmarks/README.md, workload n, has the figures).
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

extension MainLoop.Work {
  @usableFromInline
  var firstAction: any Action {
    switch self {
    case .action(let action): action
    case .batch(let actions): actions[0]
    }
  }
}

/// Numbers the delivery passes on the main queue, across stores: every subscription a pass
/// reaches receives the same state, so a value derived from it once serves the whole pass
/// (`MemoizedSelector`).
///
/// Touched only on the main queue. A round sets the number again before each subscription, so
/// a round of another store that runs inside a subscriber leaves no number of its own behind.
@usableFromInline
enum DeliveryPass {
  // The numbers are C variables (StatecraftAtomics): a Swift global is reached through
  // `swift_once` on every access, 25 instructions a subscriber in each delivery (callgrind).

  @inlinable
  static var current: UInt64 { sc_delivery_pass_current() }

  /// Starts a pass and returns its number.
  @inlinable
  static func begin() -> UInt64 {
    sc_delivery_pass_begin()
  }

  /// Makes `pass` the current one again.
  @inlinable
  static func resume(_ pass: UInt64) {
    sc_delivery_pass_resume(pass)
  }
}
