extension Store {
  /// Dispatches several actions with one notification: subscribers hear of the final state
  /// only.
  ///
  /// ```swift
  /// mainStore.batch {
  ///   mainStore.dispatch(SetFilter(.all))
  ///   mainStore.dispatch(SetSort(.byEpisode))
  ///   mainStore.dispatch(SelectFilm(nil))
  /// }                                    // subscribers are notified once, here
  /// ```
  ///
  /// The actions dispatched in `body` are reduced, in order, when `body` returns, through the
  /// middleware as usual; no other thread's action is reduced between them, and no subscriber
  /// sees a state in the middle. A batch inside a batch, or inside a middleware, joins the outer
  /// one; a batch in a subscriber's `newState` is queued like a dispatch from there, and its
  /// actions are reduced together after the current round.
  ///
  /// > Important: Thunks started in `body` run as usual; the actions they dispatch after `body`
  /// > returns are not part of the batch.
  ///
  /// - Parameter body: Dispatches the actions; called on the calling thread.
  /// - Complexity: O(k) for k dispatched actions, plus their middleware and reductions, plus one
  ///   notification round.
  public func batch(_ body: () -> Void) {
    _engine.any.batch(body)
  }
}
