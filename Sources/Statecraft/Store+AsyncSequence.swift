extension Store {
  /// Dispatches the actions of an asynchronous sequence, in order, as they arrive: several
  /// state changes from one piece of async work, like ReactorKit's `mutate`.
  ///
  /// ```swift
  /// func search(_ query: String) -> AsyncStream<SearchAction> {
  ///   AsyncStream { continuation in
  ///     continuation.yield(.setLoading(true))
  ///     …
  ///   }
  /// }
  /// mainStore.dispatch(search("hope"), id: "search", policy: .cancelPrevious)
  /// ```
  ///
  /// - Parameters:
  ///   - actions: The actions; iterated in a new task, off the main actor.
  ///   - id: An identifier to cancel the iteration by; see ``cancelThunks(id:)``.
  ///   - policy: What starting it does when thunks with the same `id` run or just ran.
  /// - Returns: The running iteration: await it to know every action was dispatched, or cancel
  ///   it to stop; no action is dispatched after it is cancelled.
  /// - Complexity: O(1); the sequence is iterated in a new task.
  @discardableResult
  public func dispatch<Actions: AsyncSequence & Sendable>(
    _ actions: Actions, id: ThunkID? = nil, policy: ThunkPolicy = .concurrent
  ) -> ThunkTask<Void> where Actions.Element: Action {
    dispatchEach(of: actions, id: id, policy: policy) { $0 }
  }

  /// Dispatches the actions of an asynchronous sequence of actions of different types, in
  /// order, as they arrive.
  ///
  /// ```swift
  /// let steps = AsyncStream<any Action> { continuation in
  ///   continuation.yield(SetLoading(isLoading: true))
  ///   continuation.yield(SetFilms(films: films))
  ///   continuation.finish()
  /// }
  /// mainStore.dispatch(steps)
  /// ```
  ///
  /// - Parameters:
  ///   - actions: The actions; iterated in a new task, off the main actor.
  ///   - id: An identifier to cancel the iteration by; see ``cancelThunks(id:)``.
  ///   - policy: What starting it does when thunks with the same `id` run or just ran.
  /// - Returns: The running iteration, as for a sequence of one action type.
  /// - Complexity: O(1); the sequence is iterated in a new task.
  @discardableResult
  public func dispatch<Actions: AsyncSequence & Sendable>(
    _ actions: Actions, id: ThunkID? = nil, policy: ThunkPolicy = .concurrent
  ) -> ThunkTask<Void> where Actions.Element == any Action {
    dispatchEach(of: actions, id: id, policy: policy) { $0 }
  }

  /// The one body of both `dispatch(_:id:policy:)` overloads for sequences.
  func dispatchEach<Actions: AsyncSequence & Sendable>(
    of actions: Actions, id: ThunkID?, policy: ThunkPolicy,
    _ erase: @escaping @Sendable (Actions.Element) -> any Action
  ) -> ThunkTask<Void> {
    _engine.any.checkNotReducing(.method("dispatch(_:) of the AsyncSequence \(Actions.self)"))
    return dispatch(
      Thunk(id: id, policy: policy) { context in
        for try await element in actions {
          try context.checkCancellation()
          context.dispatch(erase(element))
        }
      })
  }
}
