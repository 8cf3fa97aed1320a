import StatecraftAtomics

// Inlinable, so that the app compiles the path of an action for its own `State`: built
// generic in the library, a main-thread dispatch with one subscriber took 10,772 instructions
// instead of 1,099 and allocated, a dispatch from another thread 1,637 instead of 339
// (callgrind, Benchmarks/README.md, "Why the engine is inlinable").

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
  enum Reduce: Sendable {
    case returning(Reducer<State>)
    case inPlace(InPlaceReducer<State>)
  }

  @usableFromInline
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
  @usableFromInline let _reduce: @Sendable (inout State?, borrowing any Action) -> Void
  @usableFromInline let _listeners: ActionListeners
  /// Set while a round runs its selectors inside the state lock (`withCommittedState`), so that a
  /// commit waits for it by spinning rather than sleeping in the kernel: the round is short and
  /// running, and being woken cost a dispatching thread more than the round took (with 100
  /// subscribers, 1.5-2.1 million dispatches in 2 s instead of 15-17 million, Benchmarks/README.md).
  @usableFromInline let _isSelecting = AtomicCell<Bool>(false)
  /// For a scope: reads the root's committed state through the scope's key path, with the
  /// root's version, instead of a committed state of its own (`nil` once the root is gone).
  @usableFromInline let _source: Source?

  @usableFromInline
  typealias Source = @Sendable () -> (state: State, version: UInt64)?

  @inlinable
  init(reduce: Reduce, state: State?, source: Source? = nil) {
    switch reduce {
    case .returning(let reducer):
      _reduce = { state, action in state = reducer(action, state.take()) }
    case .inPlace(let reducer):
      _reduce = { state, action in
        guard var next = state.take() else { Misuse.noState() }
        reducer(&next, action)
        state = next
      }
    }
    _source = source
    _committed = Locked(Committed(state: state))
    _listeners = ActionListeners()
  }

  /// The committed state; `nil` only while the init action goes through the middleware.
  @inlinable
  var stateIfAny: State? {
    checkNotReducing(.readState)
    if let _source { return _source()?.state }
    return _committed.withLock { $0._state }
  }

  /// Waits, spinning for at most about ten microseconds, until the round running its selectors
  /// under the state lock is done; the lock then sleeps if it is still held.
  @usableFromInline
  func waitForSelection() {
    for _ in 0..<500 where _isSelecting.load(ordering: .relaxed) {
      sc_cpu_relax()
    }
  }

  /// A committed state and its version.
  @usableFromInline
  typealias Snapshot = (state: State, version: UInt64)

  /// The committed state and its version, read together.
  @inlinable
  var snapshot: Snapshot? {
    if let _source { return _source() }
    return _committed.withLock { committed in committed._state.map { ($0, committed._version) } }
  }

  /// Stops the program if the calling thread is running the reducer, or a round's selectors
  /// under the state lock (C11).
  @inlinable
  func checkNotReducing(_ call: @autoclosure () -> Misuse.StoreCall) {
    if sc_reducing_reduction() == UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) {
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
    defer { _isSelecting.store(false, ordering: .relaxed) }
    return _committed.withLock { committed in
      guard let state = committed._state else { return nil }
      _isSelecting.store(true, ordering: .relaxed)
      let outer = sc_begin_reducing(
        Unmanaged.passUnretained(self).toOpaque(), sc_selecting_marker())
      defer { sc_end_reducing(outer) }
      return body(state, committed._version)
    }
  }

  /// Reduces `action` and commits the result.
  ///
  /// Returns the version committed.
  // Always inlined: left to the optimizer, `process` stopped inlining it when the atomics moved
  // to `AtomicCell`, and the call copied and destroyed the action's existential on every dispatch
  // (callgrind: 419 instructions a dispatch instead of 381).
  @inlinable @inline(__always)
  @discardableResult
  func commit(_ action: any Action) -> UInt64 {
    withUnsafePointer(to: action) { commit(at: $0) }
  }

  /// ``commit(_:)`` for the action at `action`, which the dispatch path passes by address (see
  /// `StoreCore.dispatch(at:)`).
  @inlinable @inline(__always)
  @discardableResult
  func commit(at action: UnsafePointer<any Action>) -> UInt64 {
    commit(at: action) { _, version in version }
  }

  /// ``commit(at:)``, returning what `read` makes of the committed state and its version in the
  /// same critical section.
  @inlinable @inline(__always)
  func commit<Result>(
    at action: UnsafePointer<any Action>,
    then read: (_ committed: borrowing Committed, _ version: UInt64) -> Result
  ) -> Result {
    // Copied before the lock, not inside it: the reducer takes the action borrowed, and the copy
    // of the existential that reading `pointee` makes was a seventh of the critical section.
    let copy = action.pointee
    if _isSelecting.load(ordering: .relaxed) { waitForSelection() }
    let result = _committed.withLock { committed in
      let version = commitLocked(&committed, copy, at: action)
      return read(committed, version)
    }
    if _listeners._count.load(ordering: .relaxed) > 0 {
      _listeners.notify(action.pointee)
    }
    return result
  }

  /// Reduces `actions` in one critical section, so that no other thread's action falls
  /// between them and no reader sees a state in the middle.
  ///
  /// Returns the version committed last.
  @discardableResult
  func commitAll(_ actions: [any Action]) -> UInt64 {
    let version = _committed.withLock { committed in
      for action in actions {
        _ = withUnsafePointer(to: action) { commitLocked(&committed, action, at: $0) }
      }
      return committed._version
    }
    if _listeners._count.load(ordering: .relaxed) > 0 {
      for action in actions { _listeners.notify(action) }
    }
    return version
  }

  /// Reduces `action`, found at `address`, into `committed`, which the caller has locked.
  @inlinable @inline(__always)
  func commitLocked(
    _ committed: inout Committed, _ action: borrowing any Action,
    at address: UnsafePointer<any Action>
  ) -> UInt64 {
    // The action's address, not `type(of: action)`: that is a runtime call (53 instructions a
    // dispatch, callgrind), for a message that is almost never written.
    let outer = sc_begin_reducing(Unmanaged.passUnretained(self).toOpaque(), address)
    _reduce(&committed._state, action)
    sc_end_reducing(outer)
    committed._version &+= 1
    if _listeners._observerCount.load(ordering: .relaxed) > 0 {
      _listeners.notifyObservers(copy action)
    }
    return committed._version
  }

  /// The version committed last.
  var version: UInt64 {
    if let _source { return _source()?.version ?? 0 }
    return _committed.withLock { $0._version }
  }
}
