import Dispatch
import StatecraftAtomics
import StatecraftPrimitives

/// The committed state, its version, and the reducer that makes the next one.
///
/// Owns the *state lock*. Split from `StoreCore` so that the end of the middleware chain can
/// hold it strongly: a middleware that keeps `next` after the store is gone then reduces into
/// this orphan, which no one reads, instead of every dispatch paying for a weak reference.
///
/// The committed state is behind the state lock. Which reduction a thread is running, and the
/// action, are thread-local (`sc_begin_reducing` in `StatecraftAtomics`), so that every store
/// method can stop when a reducer calls it (C11) without reading memory other threads write.
@usableFromInline
final class Reduction<State: Sendable>: Sendable {
  @usableFromInline
  enum Reduce {
    case returning(Reducer<State>)
    case inPlace(InPlaceReducer<State>)
    /// A main-actor reducer, as a function that changes the state in place, made on the main
    /// actor and called only on the main queue (C17).
    case onMainQueue(Reduction<State>.InPlace)
  }

  @usableFromInline
  typealias InPlace = (inout State?, borrowing any Action) -> Void

  @usableFromInline @frozen
  struct Committed: Sendable {
    /// `nil` only until the init action is reduced, and while the reducer runs.
    @usableFromInline var _state: State?
    /// Counts commits; a round delivers a state only if its version is newer than the last.
    @usableFromInline var _version: UInt64 = 0

    @inlinable
    init(state: State?) {
      self._state = state
    }
  }

  @usableFromInline let _committed: Locked<Committed>
  /// The reducer, either shape, as one function that changes the committed state in place.
  ///
  /// One closure rather than the `Reduce` enum: binding the enum's payload retained and released
  /// the reducer's context on every dispatch, inside the state lock.
  ///
  /// Not `Sendable` for a main-actor reducer, which the store calls only on the main queue: the
  /// dispatch path sends every other thread's work there first (C17).
  @usableFromInline nonisolated(unsafe) let _reduce: InPlace
  @usableFromInline let _commitObservers: CommitObservers<State>
  @usableFromInline let _words: StoreWords
  #if DEBUG
    /// What the development checks of debug builds count (`DevelopmentChecks`): beside the
    /// committed state, not in it, so that the state lock guards only what a commit changes.
    @usableFromInline let _checks = Locked(ReductionChecks())
  #endif

  /// The reducer of either shape as the function the store calls; inlinable, so that it is
  /// specialized for the app's `State`.
  @inlinable
  static func function(for reduce: Reduce) -> InPlace {
    switch reduce {
    case .returning(let reducer):
      { state, action in state = reducer(action, state.take()) }
    case .inPlace(let reducer):
      { state, action in
        guard var next = state.take() else { Misuse.noState() }
        reducer(&next, action)
        state = next
      }
    case .onMainQueue(let reduce):
      reduce
    }
  }

  @usableFromInline
  init(
    reduce: @escaping InPlace, state: State?, books: Locked<Books<State>>, words: StoreWords
  ) {
    _reduce = reduce
    _words = words
    _committed = Locked(Committed(state: state))
    _commitObservers = CommitObservers(books: books, words: words)
  }

  /// The committed state; `nil` only while the init action goes through the middleware.
  @inlinable
  var stateIfAny: State? {
    checkNotReducing(.readState)
    return _committed.withLock { $0._state }
  }

  /// Waits, spinning for at most about ten microseconds, until the round running its selectors
  /// under the state lock is done; the lock then sleeps if it is still held.
  @usableFromInline
  func waitForSelection() {
    for _ in 0..<500 where _words.isSelecting {
      sc_cpu_relax()
    }
  }

  /// A committed state and its version.
  @usableFromInline
  typealias Snapshot = (state: State, version: UInt64)

  /// The committed state and its version, read together.
  @inlinable
  var snapshot: Snapshot? {
    return _committed.withLock { committed in committed._state.map { ($0, committed._version) } }
  }

  /// Stops the program if the calling thread is running the reducer, or a round's selectors
  /// under the state lock (C11).
  @inlinable
  func checkNotReducing(_ call: @autoclosure () -> Misuse.StoreCall) {
    if sc_reducing_reduction() == UnsafeRawPointer(bitPattern: address(of: self)) {
      if sc_reducing_action() == sc_selecting_marker() { Misuse.calledFromSelector(call()) }
      let action = sc_reducing_action()?.assumingMemoryBound(to: (any Action).self)
      Misuse.calledFromReducer(call(), reducing: action.map { type(of: $0.pointee) })
    }
  }

  /// Runs `body` with the committed state and its version inside the state lock, so that no
  /// reference to the state outlives the lock and the next commit finds it unshared (C13).
  ///
  /// For a round's first phase, which runs the subscriptions' selectors and filters: the store's
  /// methods stop if they call it (C11). Returns `nil` before the first state.
  @inlinable
  func withCommittedState<Result>(_ body: (State, UInt64) -> Result) -> Result? {
    // Set once the lock is taken, so that commits spin only while this thread holds it, and
    // cleared once it is released, so that a commit that stops spinning finds it free.
    defer { _words.setMainFlag(StoreWords.selecting, false) }
    return _committed.withLock { committed in
      guard let state = committed._state else { return nil }
      _words.setMainFlag(StoreWords.selecting, true)
      let outer = sc_begin_reducing(
        UnsafeRawPointer(bitPattern: address(of: self)), sc_selecting_marker())
      defer { sc_end_reducing(outer) }
      return body(state, committed._version)
    }
  }

  /// Reduces `action` and commits the result.
  ///
  /// Returns the version committed.
  // Always inlined: as a call, it copies and destroys the action's existential.
  @inlinable @inline(__always)
  @discardableResult
  func commit(_ action: any Action) -> UInt64 {
    // Borrowed where it is, without a copy: the middleware chain's end passes its argument.
    withUnsafePointer(to: action) { commit(action, at: $0) { _, version in version } }
  }

  /// ``commit(_:)`` for the action at `action`, which the dispatch path passes by address (see
  /// `StoreCore.dispatch(at:)`), returning what `read` makes of the committed state and its
  /// version in the same critical section.
  @inlinable @inline(__always)
  func commit<Result>(
    at action: UnsafePointer<any Action>,
    then read: (_ committed: borrowing Committed, _ version: UInt64) -> Result
  ) -> Result {
    // Copied before the lock, not inside it: the reducer takes the action borrowed, and the copy
    // of the existential that reading `pointee` makes was a seventh of the critical section.
    let copy = action.pointee
    return commit(copy, at: action, then: read)
  }

  /// Commits `action`, whose address is `address` (for the misuse checks), borrowed.
  @inlinable @inline(__always)
  func commit<Result>(
    _ action: any Action, at address: UnsafePointer<any Action>,
    then read: (_ committed: borrowing Committed, _ version: UInt64) -> Result
  ) -> Result {
    if _words.isSelecting { waitForSelection() }
    #if DEBUG
      var took = (started: UInt64(0), ended: UInt64(0))
    #endif
    let result = _committed.withLock { committed in
      #if DEBUG
        took.started = DispatchTime.now().uptimeNanoseconds
      #endif
      let version = commitLocked(&committed, action, at: address)
      #if DEBUG
        took.ended = DispatchTime.now().uptimeNanoseconds
      #endif
      if _words.hasCommitObservers { _commitObservers.notifyObservers(action) }
      return read(committed, version)
    }
    #if DEBUG
      noteReduction(of: action, from: took.started, to: took.ended)
    #endif
    if _words.hasCommitObservers {
      _commitObservers.notify(action)
    }
    return result
  }

  /// Reduces `actions` in one critical section, so that no other thread's action falls
  /// between them and no reader sees a state in the middle.
  ///
  /// Returns the version committed last.
  @discardableResult
  func commitAll(_ actions: [any Action]) -> UInt64 {
    #if DEBUG
      var took: [(started: UInt64, ended: UInt64)] = []
    #endif
    let version = _committed.withLock { committed in
      for action in actions {
        #if DEBUG
          let started = DispatchTime.now().uptimeNanoseconds
        #endif
        _ = withUnsafePointer(to: action) { commitLocked(&committed, action, at: $0) }
        #if DEBUG
          took.append((started, DispatchTime.now().uptimeNanoseconds))
        #endif
        if _words.hasCommitObservers { _commitObservers.notifyObservers(action) }
      }
      return committed._version
    }
    #if DEBUG
      for (action, took) in zip(actions, took) {
        noteReduction(of: action, from: took.started, to: took.ended)
      }
    #endif
    if _words.hasCommitObservers {
      for action in actions { _commitObservers.notify(action) }
    }
    return version
  }

  /// Reduces `action`, found at `address`, into `committed`, which the caller has locked; the
  /// caller then tells the observers of every action, in the same critical section.
  @inlinable @inline(__always)
  func commitLocked(
    _ committed: inout Committed, _ action: borrowing any Action,
    at address: UnsafePointer<any Action>
  ) -> UInt64 {
    // The action's address, not `type(of: action)`: that is a runtime call on every dispatch,
    // for a message that is almost never written.
    let outer = sc_begin_reducing(
      UnsafeRawPointer(bitPattern: StatecraftPrimitives.address(of: self)), address)
    _reduce(&committed._state, action)
    sc_end_reducing(outer)
    committed._version &+= 1
    return committed._version
  }

  /// The version committed last.
  var version: UInt64 {
    return _committed.withLock { $0._version }
  }
}

#if DEBUG
  /// The development checks of debug builds that count reductions (`DevelopmentChecks`).
  ///
  /// A reduction on the main queue that takes longer than a frame, and an action type reduced
  /// more often than the limit within a second. Each is reported once per action type and store.
  ///
  /// Under a lock of its own, taken after the state lock is released: a slow or storming reducer
  /// is found a moment later than it commits, and the commit path carries none of it.
  @usableFromInline @frozen
  struct ReductionChecks: Sendable {
    @usableFromInline var windowStart: UInt64 = 0
    @usableFromInline var counts: [ObjectIdentifier: Int] = [:]
    @usableFromInline var reportedSlow: Set<ObjectIdentifier> = []
    @usableFromInline var reportedStorms: Set<ObjectIdentifier> = []

    @inlinable
    init() {}

    /// Whether either check is on (`DevelopmentChecks`).
    @inlinable
    static var areOn: Bool {
      sc_checks_slow_reduction() != 0 || sc_checks_storm_limit() != 0
    }

    /// Notes a reduction of `action` that took `duration` nanoseconds and ended at `now`.
    ///
    /// Returns the warning to write if it breaks a limit for the first time.
    @inlinable
    mutating func note(_ action: any Action, took duration: UInt64, at now: UInt64) -> String? {
      let slow = sc_checks_slow_reduction()
      let limit = sc_checks_storm_limit()
      var warning: String?
      let type = typeIdentifier(of: action)
      if slow != 0, duration > slow, MainQueue.isCurrent, reportedSlow.insert(type).inserted {
        warning = StatecraftDiagnostics.slowReduction(of: action, took: duration, limit: slow)
      }
      guard limit != 0 else { return warning }
      if now &- windowStart >= 1_000_000_000 {
        windowStart = now
        counts.removeAll(keepingCapacity: true)
      }
      let count = counts[type, default: 0] + 1
      counts[type] = count
      if count > limit, reportedStorms.insert(type).inserted {
        warning = StatecraftDiagnostics.actionStorm(of: action, limit: limit)
      }
      return warning
    }
  }

  extension Reduction {
    /// Notes a reduction for the development checks and writes the warning it raises; outside the
    /// state lock, because the warning handler may read the store.
    @usableFromInline
    func noteReduction(of action: any Action, from started: UInt64, to ended: UInt64) {
      guard ReductionChecks.areOn else { return }
      let warning = _checks.withLock { $0.note(action, took: ended &- started, at: ended) }
      if let warning { StatecraftDiagnostics.warn(warning) }
    }
  }
#endif

extension Reduction {
  /// Stops if `action` is a thunk of this store's state that reached the reducer.
  ///
  /// A thunk of another state passes, as in ReSwift, where the reducer ignores it. Debug builds
  /// only: the check costs a dynamic cast per action.
  @usableFromInline
  static func checkReducible(_ action: any Action) {
    guard let startable = action as? any StartedByTheStore,
      type(of: startable).stateType == State.self
    else { return }
    Misuse.thunkReachedReducer(action)
  }
}

/// An action the store starts instead of reducing: a thunk.
///
/// The engine knows only this marker; the thunk layer conforms its types to it.
@usableFromInline
protocol StartedByTheStore: Action {
  /// The state of the stores that start it.
  static var stateType: Any.Type { get }
}

/// Tells the actions the store starts (thunks) from those it reduces.
@usableFromInline
enum ActionKind {
  /// Whether `action` is certainly no thunk: asked on every dispatch, so that a thunk dispatched
  /// as `any Action` is started, as one dispatched with its own type is, never reduced.
  ///
  /// A load and a compare for an action type seen before (`sc_plain_action_types`); a dynamic
  /// cast the first time, and whenever another type took its slot.
  @inlinable
  static func isReducible(at action: UnsafePointer<any Action>) -> Bool {
    let type = UInt64(typeAddress(ofExistentialAt: action))
    return sc_is_plain_action_type(type) != 0 || isReducibleAfterCast(action.pointee, type: type)
  }

  @usableFromInline
  static func isReducibleAfterCast(_ action: any Action, type: UInt64) -> Bool {
    guard !(action is any StartedByTheStore) else { return false }
    sc_note_plain_action_type(type)
    return true
  }
}

extension Reduction {
  // A non-Sendable function made on the main actor may drop its isolation: it cannot leave the
  // main actor's region (SE-0434). The store keeps it in `_reduce`, which it calls only on the
  // main queue (C17), and hands it out of the main actor once, in `Store.init`.

  /// A main-actor reducer of ReSwift's shape as the function the store calls.
  @MainActor
  static func onMainQueue(_ reducer: @escaping @MainActor (any Action, State?) -> State) -> InPlace
  {
    { state, action in
      assert(MainQueue.isCurrent, "Statecraft: a main-actor reducer ran off the main queue")
      state = reducer(action, state.take())
    }
  }

  /// A main-actor in-place reducer as the function the store calls.
  @MainActor
  static func onMainQueue(_ reducer: @escaping MainActorInPlaceReducer<State>) -> InPlace {
    { state, action in
      assert(MainQueue.isCurrent, "Statecraft: a main-actor reducer ran off the main queue")
      guard var next = state.take() else { Misuse.noState() }
      reducer(&next, action)
      state = next
    }
  }
}

// MARK: - The type of an action

/// The identity of the action's type, read from the existential without a runtime call.
///
/// Cheaper than `type(of:)` and a closure call per listener (benchmark h). For a class, the
/// identity may be a superclass's; listeners of classes do not use it.
@inlinable
func typeIdentifier(of action: any Action) -> ObjectIdentifier {
  func identifier<Concrete: Action>(_: Concrete) -> ObjectIdentifier {
    ObjectIdentifier(Concrete.self)
  }
  return identifier(action)
}
