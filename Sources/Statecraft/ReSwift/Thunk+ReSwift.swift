extension Thunk {
  /// Creates a thunk with ReSwift-Thunk's body, run synchronously inside `dispatch`.
  ///
  /// ReSwift-Thunk's initializer: code written for ReSwift-Thunk compiles unchanged, with a
  /// trailing closure or with the `body:` label written out.
  ///
  /// ```swift
  /// let fetchFilms = Thunk<AppState> { dispatch, getState in
  ///   guard getState()?.isLoading == false else { return }
  ///   dispatch(SetLoading(isLoading: true))
  ///   filmService.load { films in dispatch(SetFilms(films: films)) }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - id: An identifier to cancel the thunk by; see ``Store/cancelThunks(id:)``.
  ///   - policy: What starting it does when thunks with the same `id` run or just ran.
  ///   - body: The work. `dispatch` sends actions (and thunks) to the store; `getState` reads
  ///     the committed state, or `nil` once the store is gone.
  /// - Complexity: O(1).
  @preconcurrency
  public init(
    id: ThunkID? = nil,
    policy: ThunkPolicy = .concurrent,
    body:
      @escaping @Sendable (
        _ dispatch: @escaping DispatchFunction, _ getState: @escaping GetState<State>
      ) -> Void
  ) {
    self.id = id
    self.policy = policy
    self.body = .immediate(body)
  }
}
