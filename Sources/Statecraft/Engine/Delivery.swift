import Dispatch
import StatecraftAtomics

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

  @usableFromInline
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
    guard !core.isBatchOpenOnAnotherThread else { return }  // its end schedules a round
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
  func deliverFirst(_ core: StoreCore<State>, _ deliver: () -> Void) {
    _ = DeliveryPass.begin()  // the state may be newer than the running round's
    guard !_isRunning else {
      deliver()  // part of the running round; its dispatches queue there
      return
    }
    _isRunning = true
    defer { endRound(core) }
    deliver()
    runChain(core)
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
  func forgetSubscriptions() {
    _rounds.pass.forget()
  }

  /// Makes room in the rounds' list of held values for `count` subscriptions, unless a round
  /// runs: its second phase may be reading the list (its first phase makes room itself).
  func reserveHeld(_ count: Int) {
    if !_isRunning { _rounds.pass.reserveHeld(count) }
  }

  /// The version of the state the running round delivers; for scopes, whose subscriptions it
  /// feeds through one subscription of their own.
  var deliveringVersion: UInt64 { _rounds.deliveredVersion }
}

/// One list of subscriptions fed in a round's two phases (C13): the root store's, and each
/// scope's, which the root's round feeds through one subscription of the scope's.
///
/// Touched only on the main queue. The first phase runs every active subscription's steps and
/// notes which held a value; the second hands the held values over. Nothing changes the entries
/// between the two phases: a root's follow each other, and a scope does not forget its copy
/// during a round. The second phase keeps its own copy, for a subscribe during it.
@usableFromInline @frozen
struct Pass<State: Sendable> {
  /// The registry's entries and their addresses as of `entriesGeneration`.
  ///
  /// Read again only when they changed, which saves a round the registry's lock. Forgotten
  /// before a subscribe on the main queue, so that the registry appends to arrays it alone
  /// holds.
  @usableFromInline var entries: [SubscriptionEntry<State>] = []
  @usableFromInline var addresses: [UInt] = []
  @usableFromInline var entriesGeneration: UInt64 = .max
  /// The indices in `entries` whose steps held a value in the first phase, `heldCount` of them.
  ///
  /// Allocated on subscribing, so that a round does not; a raw buffer, because an array's append
  /// checks its uniqueness each time. Its owner deallocates it.
  @usableFromInline var held = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
  @usableFromInline var heldCount = 0

  @inlinable
  init() {}

  /// Frees `held`; for the owner's `deinit`.
  func deallocate() {
    held.deallocate()
  }

  /// Reads the registry's entries again, with `read`, as of `generation`.
  @inlinable
  mutating func refresh(
    generation: UInt64, _ read: () -> ([SubscriptionEntry<State>], [UInt])
  ) {
    (entries, addresses) = read()
    entriesGeneration = generation
  }

  /// Drops the copy of the registry's arrays; see `MainLoop.forgetSubscriptions()`.
  @usableFromInline
  mutating func forget() {
    entries = []
    addresses = []
    entriesGeneration = .max
  }

  /// Makes room for the indices of `count` subscriptions in `held`.
  ///
  /// Never between the two phases: the second reads the buffer a larger one would replace.
  @usableFromInline
  mutating func reserveHeld(_ count: Int) {
    guard held.count < count else { return }
    let old = held
    held = .allocate(capacity: Swift.max(count, 2 * old.count))
    old.deallocate()
  }

  /// The first phase: runs every subscription's steps on `state`, committed as `version`.
  ///
  /// Returns whether any subscription has work for the second phase.
  @inlinable
  mutating func select(_ state: State, version: UInt64) -> Bool {
    if held.count < addresses.count {
      reserveHeld(addresses.count)  // subscribed during a round or off the main queue (C15)
    }
    let held = self.held
    var count = 0
    let pass = DeliveryPass.begin()
    // `entries` keeps every entry alive, so the loops borrow them unretained, without a retain
    // and a release per subscriber.
    for index in addresses.indices {
      DeliveryPass.resume(pass)
      let holds = withObject(at: addresses[index], as: SubscriptionEntry<State>.self) {
        $0.select(state, version: version)
      }
      if holds {
        held[count] = index
        count += 1
      }
    }
    heldCount = count
    return count > 0
  }

  /// The second phase: hands the values the first held to their subscribers, and passes each
  /// subscription found gone to `remove`.
  @inlinable
  mutating func deliverHeld(remove: (SubscriptionEntry<State>) -> Void) {
    // Kept for the loop: a subscriber that subscribes makes the pass forget its copy.
    let entries = entries
    let addresses = addresses
    let held = UnsafeBufferPointer(rebasing: self.held[..<heldCount])
    heldCount = 0
    for index in held {
      let delivered = withObject(at: addresses[index], as: SubscriptionEntry<State>.self) {
        $0.deliverHeld()
      }
      if !delivered {
        remove(entries[index])  // the subscriber was found deallocated
      }
    }
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

/// Numbers the delivery passes on the main queue, across stores: every subscription a pass
/// reaches receives the same state, so a value derived from it once serves the whole pass
/// (`MemoizedSelector`).
///
/// Touched only on the main queue. A round sets the number again before each subscription, so
/// a round of another store that runs inside a subscriber leaves no number of its own behind.
@usableFromInline
enum DeliveryPass {
  // The numbers are C variables (StatecraftAtomics): a Swift global is reached through
  // `swift_once` on every access.

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

/// Whether a subscription still delivers: four atomic words in one allocation, shared by its
/// entry, its last step and its token.
///
/// The last step holds it (not the entry weakly) to mark the subscription gone when it finds the
/// subscriber deallocated: a weak reference would move the entry's reference counts to the slow
/// path on every notification.
@usableFromInline @frozen
struct SubscriptionStatus: Sendable {
  @usableFromInline let _words: AtomicWords

  @usableFromInline
  init() {
    _words = AtomicWords(count: 4)
    _isActive.store(true, ordering: .relaxed)
  }

  /// Names the subscription, for the registry and the token.
  var identity: ObjectIdentifier { ObjectIdentifier(_words._buffer) }

  /// Cleared by removal (any thread) or when the subscriber is found deallocated.
  ///
  /// Checked just before each delivery, so removal during a notification round takes effect at
  /// once.
  @inlinable
  var _isActive: AtomicWord<Bool> { _words[0] }

  /// Set once the registry has counted the subscription as removed; guarded by the bookkeeping
  /// lock.
  @inlinable
  var _isRemoved: AtomicWord<Bool> { _words[1] }

  /// The version of the state delivered on subscribing; later deliveries must be newer.
  ///
  /// `UInt64.max` until a subscription made off the main queue gets its first state there; set
  /// before the entry is shared or on the main queue, and read only there.
  @inlinable
  var _startVersion: AtomicWord<UInt64> { _words[2] }

  /// Set when the subscription's steps hold a value for the subscriber.
  ///
  /// A round's first phase ran them under the state lock, and its second phase hands the value
  /// over (C13). Touched only on the main queue.
  @inlinable
  var _isHolding: AtomicWord<Bool> { _words[3] }

  @usableFromInline
  func markGone() {
    _isActive.store(false, ordering: .releasing)
  }
}

/// The values a subscription's steps selected for the subscriber in a round's first phase.
///
/// Kept until its second phase hands them over (C13): usually one, several when a step emits
/// more than one value for a state (``Subscription/pulses(_:)``). Touched only on the main queue.
@usableFromInline @frozen
struct HeldValues<Value> {
  @usableFromInline var _first: Value?
  @usableFromInline var _rest: [Value] = []

  @inlinable
  init() {}

  @inlinable
  mutating func append(_ value: Value) {
    if case .none = _first {
      _first = value
    } else {
      _rest.append(value)
    }
  }

  /// Removes the values and calls `deliver` with each, in the order they were held.
  @inlinable
  mutating func deliver(_ deliver: (Value) -> Void) {
    guard let first = _first.take() else { return }
    deliver(first)
    if !_rest.isEmpty {
      let rest = _rest
      _rest = []
      for value in rest { deliver(value) }
    }
  }
}

/// The last step of a subscriber object's subscription: holds the subscriber weakly and the
/// values its steps selected until the subscriber receives them.
///
/// The last step calls ``hold(_:)`` through a closure that captures only this object, so the
/// closure needs no context of its own: one allocation less per subscription than a closure
/// capturing the subscriber weakly and the status. Used only on the main queue.
@usableFromInline
final class SubscriberReceiver<Subscriber: StoreSubscriber> {
  @usableFromInline let _status: SubscriptionStatus
  @usableFromInline weak var _subscriber: Subscriber?
  // Unchecked: touched only on the main queue, by `hold` and `deliverHeld`, which never overlap;
  // the run-time checks are a large part of a notification (Benchmarks/README.md, row c).
  @exclusivity(unchecked) @usableFromInline
  var _held = HeldValues<Subscriber.StoreSubscriberStateType>()

  @usableFromInline
  init(_ subscriber: Subscriber, status: SubscriptionStatus) {
    _subscriber = subscriber
    _status = status
  }

  /// Keeps `value` for ``deliverHeld()``; the last step of the subscription.
  @MainActor
  @inlinable
  func hold(_ value: Subscriber.StoreSubscriberStateType) {
    _held.append(value)
    _status._isHolding.store(true, ordering: .relaxed)
  }

  /// Hands the held values to the subscriber, or marks the subscription gone if the subscriber
  /// was deallocated.
  @MainActor
  @inlinable
  func deliverHeld() {
    _status._isHolding.store(false, ordering: .relaxed)
    guard let subscriber = _subscriber else {
      _held = HeldValues()
      _status.markGone()
      return
    }
    _held.deliver { subscriber.newState(state: $0) }
  }
}

/// The last step of a closure subscription: holds the closure and the values the steps selected
/// until the closure receives them.
///
/// Not the status, which the token holds: the closure must go with the store (a stream built on
/// it finishes then), and a scope's closure holds the scope, which holds its token.
@usableFromInline
final class ClosureReceiver<Value> {
  @usableFromInline let _status: SubscriptionStatus
  @usableFromInline let _receive: @MainActor (Value) -> Void
  // Unchecked, as `SubscriberReceiver._held`.
  @exclusivity(unchecked) @usableFromInline var _held = HeldValues<Value>()

  @usableFromInline
  init(status: SubscriptionStatus, receive: @escaping @MainActor (Value) -> Void) {
    _status = status
    _receive = receive
  }

  /// Keeps `value` for ``deliverHeld()``.
  @MainActor
  @inlinable
  func hold(_ value: Value) {
    _held.append(value)
    _status._isHolding.store(true, ordering: .relaxed)
  }

  /// Hands the held values to the closure.
  @MainActor
  @inlinable
  func deliverHeld() {
    _status._isHolding.store(false, ordering: .relaxed)
    _held.deliver { _receive($0) }
  }
}

/// One subscription: the composed pipeline from the store's state to the subscriber, and the
/// identity it is registered under.
@MainActor
@usableFromInline
final class SubscriptionEntry<State: Sendable>: Sendable {
  /// The subscriber object, for `unsubscribe(_:)`; `nil` for closure subscriptions.
  nonisolated let owner: ObjectIdentifier?
  @usableFromInline nonisolated let _status: SubscriptionStatus
  /// The composed steps, ending in the status's `hold`; called only on the main queue, in a
  /// round's first phase (under the state lock) and by `deliverInitial`.
  ///
  /// `nil` once the subscription is removed, so that the user's closures go at once although the
  /// entry stays until the registry compacts.
  // nonisolated(unsafe): read and written only on the main queue; see `select`.
  @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var _receive: ((State) -> Void)?
  /// Hands what the steps held to the subscriber: the status's `deliverHeld`.
  @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var _deliverHeld: (() -> Void)?

  nonisolated var status: SubscriptionStatus { _status }

  /// Makes an entry whose steps are not built yet: the first step sets `_receive` when the
  /// subscription's steps are attached (`Store.makeSubscription`).
  @usableFromInline
  init(owner: ObjectIdentifier?, status: SubscriptionStatus, deliverHeld: @escaping () -> Void) {
    self.owner = owner
    _status = status
    _deliverHeld = deliverHeld
  }

  /// A round's first phase: runs the steps on the state committed as `version`, unless this
  /// subscription already has it or is no longer active.
  ///
  /// Returns whether the second phase has work here: a value the steps held for the subscriber,
  /// or a subscription found gone that is still registered.
  ///
  /// Called only by the main loop, on the main queue. Nonisolated so that the loop can call it
  /// through an unretained reference from a `@Sendable` closure: a closure isolated to the main
  /// actor is checked at run time on every call.
  @inlinable
  nonisolated func select(_ state: State, version: UInt64) -> Bool {
    assert(MainQueue.isCurrent, "a subscription delivers only on the main queue")
    if _status._isActive.load(ordering: .acquiring) {
      guard version > _status._startVersion.load(ordering: .relaxed) else { return false }
      _receive?(state)
      return _status._isHolding.load(ordering: .relaxed)
    }
    return !_status._isRemoved.load(ordering: .relaxed)
  }

  /// A round's second phase: hands the value the first phase held to the subscriber, outside the
  /// state lock.
  ///
  /// Returns `false` if the subscription turned out to be gone.
  @inlinable
  nonisolated func deliverHeld() -> Bool {
    if _status._isActive.load(ordering: .acquiring) {
      _deliverHeld?()
      if _status._isActive.load(ordering: .relaxed) { return true }
    }
    return _status._isRemoved.load(ordering: .relaxed)
  }

  /// Drops the steps and the subscriber's closure, with what they capture; for a removed
  /// subscription, whose `select` and `deliverHeld` no longer call them.
  ///
  /// At once on the main queue, which alone calls them, else in a block posted there. A step
  /// running now keeps its own reference until it returns. Nonisolated, as `select`, so that
  /// removal from any thread needs no closure to reach the main actor.
  nonisolated func releaseSteps() {
    guard MainQueue.isCurrent else {
      DispatchQueue.main.async { self.releaseSteps() }  // at the latest by the next round
      return
    }
    _receive = nil
    _deliverHeld = nil
  }

  /// Delivers the state the subscription starts from, committed as `version`; on the main
  /// queue only.
  nonisolated func deliverInitial(_ state: State, version: UInt64) {
    _status._startVersion.store(version, ordering: .relaxed)
    _receive?(state)
    _deliverHeld?()
  }
}

/// The subscriptions of one store, in the order they were made.
///
/// Removal marks the entry inactive and leaves it in `entries` until enough have piled up to
/// compact, so subscribing and unsubscribing cost O(1) amortized however many subscriptions stand.
@usableFromInline
struct Registry<State: Sendable>: Sendable {
  @usableFromInline private(set) var _entries: [SubscriptionEntry<State>] = []
  /// The addresses of `_entries`, unretained, for the main loop's pass.
  ///
  /// Built here, where subscribing allocates anyway, so that a round after a subscription change
  /// does not allocate. Plain integers, a type that is not generic: this code runs unspecialized,
  /// and an array of `Unmanaged<SubscriptionEntry<State>>` would look its metadata up on each
  /// change.
  @usableFromInline private(set) var _addresses: [UInt] = []
  private var byOwner: [ObjectIdentifier: SubscriptionEntry<State>] = [:]
  /// Closure subscriptions, by their status: a token names its subscription by the status it
  /// holds strongly, because a weak reference to the entry would put every retain and release of
  /// it in the notification loop on the runtime's slow path.
  private var byStatus: [ObjectIdentifier: SubscriptionEntry<State>] = [:]
  private var inactiveCount = 0
  /// Counts the changes of `_entries`, modulo 2³², for the rounds' copies of them.
  private(set) var generation: UInt64 = 0
  /// A root store's words, where the count is also kept for its rounds to read without the
  /// registry's lock; `nil` for a scope's registry.
  private let words: StoreWords?

  var activeCount: Int { _entries.count - inactiveCount }

  @usableFromInline
  init(words: StoreWords?) {
    self.words = words
  }

  private mutating func changed() {
    generation = (generation &+ 1) & 0xFFFF_FFFF
    words?.registryChanged()
  }

  /// Removes every entry, for a store that is gone.
  mutating func removeAll() {
    for entry in _entries { entry.status.markGone() }
    _entries = []
    _addresses = []
    byOwner = [:]
    byStatus = [:]
    inactiveCount = 0
  }

  /// Adds `entry` at the end; an entry of the same owner is replaced.
  ///
  /// Returns the replaced one.
  mutating func add(_ entry: SubscriptionEntry<State>) -> SubscriptionEntry<State>? {
    var replaced: SubscriptionEntry<State>?
    if let owner = entry.owner {
      replaced = byOwner.updateValue(entry, forKey: owner)
      if let replaced { deactivate(replaced) }
    } else {
      byStatus[entry.status.identity] = entry
    }
    _entries.append(entry)
    _addresses.append(address(of: entry))
    changed()
    return replaced
  }

  /// Removes the subscription of `owner`.
  ///
  /// Returns the removed entry, if there was one.
  mutating func remove(owner: ObjectIdentifier) -> SubscriptionEntry<State>? {
    guard let entry = byOwner.removeValue(forKey: owner), deactivate(entry) else { return nil }
    return entry
  }

  /// Removes the closure subscription whose status is `status`.
  ///
  /// Returns the removed entry, if there was one.
  mutating func remove(status: SubscriptionStatus) -> SubscriptionEntry<State>? {
    guard let entry = byStatus.removeValue(forKey: status.identity), deactivate(entry)
    else { return nil }
    return entry
  }

  /// Removes `entry`, which is either still active (cancelled) or was found gone.
  ///
  /// Returns whether it was still registered.
  mutating func remove(_ entry: SubscriptionEntry<State>) -> Bool {
    if let owner = entry.owner {
      if byOwner[owner] === entry { byOwner[owner] = nil }
    } else {
      byStatus[entry.status.identity] = nil
    }
    return deactivate(entry)
  }

  @discardableResult
  private mutating func deactivate(_ entry: SubscriptionEntry<State>) -> Bool {
    entry.status.markGone()
    guard !entry.status._isRemoved.exchange(true, ordering: .relaxed) else { return false }
    inactiveCount += 1
    if inactiveCount >= 32, inactiveCount * 2 >= _entries.count {
      _entries.removeAll { $0.status._isRemoved.load(ordering: .relaxed) }
      _addresses.removeAll(keepingCapacity: true)
      for entry in _entries {
        _addresses.append(address(of: entry))
      }
      changed()
      inactiveCount = 0
    }
    return true
  }
}

extension StoreCore: SubscriptionRemoving {
  /// Registers a subscriber object's subscription and delivers the current state to it.
  ///
  /// Counts the subscription before reading the state: every commit after the read then
  /// notifies, and the entry's version gate drops what it already has (C8).
  @MainActor
  @usableFromInline
  func register(_ entry: SubscriptionEntry<State>) {
    add(entry)
  }

  /// Registers the subscription at once; on the main queue it also delivers the current state,
  /// elsewhere (Swift 5 code calling `subscribe` off the main actor) the newest state is
  /// delivered on the main queue as soon as it runs, and rounds skip the entry until then (C15).
  @MainActor
  private func add(_ entry: SubscriptionEntry<State>) {
    _reduction.checkNotReducing(.method("subscribe"))
    countSubscriptions(by: 1)
    guard let (state, version) = _reduction.snapshot else { Misuse.noState() }
    let isMainQueue = MainQueue.isCurrent
    entry.status._startVersion.store(isMainQueue ? version : .max, ordering: .relaxed)
    if isMainQueue { _mainLoop.forgetSubscriptions() }
    let (replaced, count) = _books.withLock { ($0.registry.add(entry), $0.registry._entries.count) }
    if let replaced {
      countSubscriptions(by: -1)
      replaced.releaseSteps()
    }
    if isMainQueue { _mainLoop.reserveHeld(count) }
    guard isMainQueue else {
      DispatchQueue.main.async { [weak self] in
        MainActor.assumeIsolated { self?.deliverFirstState(to: entry) }
      }
      return
    }
    _mainLoop.deliverFirst(self) { entry.deliverInitial(state, version: version) }
  }

  /// Delivers the newest state to a subscription made off the main queue.
  @MainActor
  private func deliverFirstState(to entry: SubscriptionEntry<State>) {
    guard entry.status._isActive.load(ordering: .acquiring),
      let (state, version) = _reduction.snapshot
    else { return }
    _mainLoop.deliverFirst(self) { entry.deliverInitial(state, version: version) }
  }

  /// Registers a closure subscription and returns the token that ends it.
  @MainActor
  @usableFromInline
  func registerToken(_ entry: SubscriptionEntry<State>) -> SubscriptionToken {
    add(entry)
    // The registry alone owns the entry, so releasing the store releases the closure, which
    // lets a stream built on it finish. The token holds the store weakly and names the entry by
    // its status.
    return SubscriptionToken(store: self, status: entry.status)
  }

  func removeSubscription(of owner: ObjectIdentifier) {
    _reduction.checkNotReducing(.method("unsubscribe"))
    if let entry = _books.withLock({ $0.registry.remove(owner: owner) }) {
      countSubscriptions(by: -1)
      entry.releaseSteps()
    }
  }

  func removeSubscription(status: SubscriptionStatus) {
    if let entry = _books.withLock({ $0.registry.remove(status: status) }) {
      countSubscriptions(by: -1)
      entry.releaseSteps()
    }
  }

  @usableFromInline
  func remove(_ entry: SubscriptionEntry<State>) {
    if _books.withLock({ $0.registry.remove(entry) }) {
      countSubscriptions(by: -1)
      entry.releaseSteps()
    }
  }

  /// The subscriptions counted as standing, and the entries the registry keeps (removed ones not
  /// yet compacted included); for the package's tests of removal and compaction.
  package var subscriptionCounts: (standing: Int, registered: Int) {
    (
      _words.subscriptionCount(ordering: .sequentiallyConsistent),
      _books.withLock { $0.registry._entries.count }
    )
  }

  private func countSubscriptions(by delta: Int) {
    _ = _words.countSubscriptions(by: delta)
  }
}
