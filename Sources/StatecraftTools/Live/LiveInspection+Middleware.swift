import Statecraft
import StatecraftPrimitives

// What each dispatch does under a `LiveInspection`: the reducer wrapper that lets the page set
// the store's state, and the middleware that streams each action and carries out the page's
// commands in the store's order.

extension LiveInspection {
  /// Wraps the app's reducer so that the page can set the store's state.
  ///
  /// - Parameter reducer: The app's reducer; the page's skips reduce the held actions again
  ///   with it.
  /// - Returns: The reducer to create the store with.
  /// - Complexity: O(1); each action then costs a type check and the reducer's work.
  @inlinable
  public func reducer(_ reducer: @escaping Reducer<State>) -> Reducer<State> {
    install(reducer)
    // Inlinable, so that this closure is compiled for the app's state: unspecialized, it looks
    // up `State?`'s metadata on every action. The replacement is in a function of its own.
    return { [words] (action: any Action, state: consuming State?) -> State in
      if words[Self.isReplacing].load(ordering: .relaxed) as Bool {
        return Self.replacing(state, by: action, reducer)
      }
      return reducer(action, consume state)
    }
  }

  @usableFromInline
  func install(_ reducer: @escaping Reducer<State>) {
    reducerBox.withLock { $0 = reducer }
    core.withLock { $0.history.forgetting = reducer }
  }

  @usableFromInline @inline(never)
  static func replacing(
    _ state: State?, by action: any Action, _ reducer: Reducer<State>
  ) -> State {
    (action as? LiveStateReplacement<State>)?.state ?? reducer(action, state)
  }

  /// The middleware that streams each action and its state when one is due, and carries out
  /// the page's commands in the store's order.
  ///
  /// - Returns: The middleware; put it last.
  /// - Complexity: O(1) to build; each action then costs a clock read, two atomic additions and
  ///   an append to a buffer under its lock, and a read of the state when one is due.
  public func middleware() -> Middleware<State> {
    { [self] dispatch, getState in
      core.withLock { $0.dispatch = dispatch }
      // The state after the newest action, once the store is quiet; not while the store shows
      // an earlier state.
      stream.readStateWhenQuiet { [words] in
        words[0].load(ordering: .acquiring) ? nil : getState()
      }
      return { next in
        { [self] action in
          if commandsPending.load(ordering: .relaxed) > 0, let command = action as? LiveCommand {
            commandsPending.add(-1, ordering: .relaxed)
            stream.beginDispatch()
            perform(command, next: next, dispatch: dispatch, getState: getState)
            stream.endDispatch()
            if isPausedFlag.load(ordering: .acquiring) { NotPresentMark.set() }
            return
          }
          if isLockedFlag.load(ordering: .acquiring), dropWhileLocked(action) { return }
          if isPausedFlag.load(ordering: .acquiring), holdWhilePaused(action) { return }
          let before =
            !hasSeenFirstAction.load(ordering: .relaxed)
              && !hasSeenFirstAction.exchange(true, ordering: .relaxed)
            ? boxedState(getState) : nil
          stream.beginDispatch()
          next(action)
          let time = MonotonicClock.now
          stream.enqueue(
            action, state: stream.takesState(at: time) ? boxedState(getState) : nil,
            before: before, at: time)
          stream.endDispatch()
        }
      }
    }
  }

  /// Keeps `action` for later if the store is paused.
  private func holdWhilePaused(_ action: any Action) -> Bool {
    let held = core.withLock { core -> Bool in
      guard core.pausedAt != nil else { return false }
      if core.waiting.count < Self.maximumWaiting {
        core.waiting.append(action)
      } else {
        core.droppedWhilePaused += 1
      }
      return true
    }
    if held {
      NotPresentMark.set()
      sendStatus()
    }
    return held
  }

  /// Drops `action` if the page locked the app and the page did not dispatch it.
  private func dropWhileLocked(_ action: any Action) -> Bool {
    let name = String(reflecting: type(of: action))
    let dropped = core.withLock { core -> Int? in
      guard core.isLocked else { return nil }
      if let pending = core.fromInspector[name] {
        core.fromInspector[name] = pending > 1 ? pending - 1 : nil
        return nil
      }
      core.droppedWhileLocked += 1
      return core.droppedWhileLocked
    }
    guard let dropped else { return false }
    if dropped == 1 {
      Self.warn(
        "LiveInspection: \(name) dropped: the inspector's page locked the app, which ignores "
          + "its own actions until the page unlocks it; the page counts the others")
    }
    sendStatus()
    return true
  }
}
