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
  /// middleware as usual; no other thread's action is reduced between them. A batch inside a
  /// batch, or inside a middleware, joins the outer one.
  ///
  /// > Important: Thunks started in `body` run as usual; the actions they dispatch after `body`
  /// > returns are not part of the batch.
  ///
  /// - Parameter body: Dispatches the actions; called on the calling thread.
  public func batch(_ body: () -> Void) {
    core.batch(body)
  }
}

extension StoreCore {
  func batch(_ body: () -> Void) {
    let me = currentThreadID()
    if reduction.owner.load(ordering: .relaxed) == me {
      // Inside processing already: the dispatches queue behind the current action.
      body()
      return
    }
    var delivered = false
    processLock.withLock {
      reduction.owner.store(me, ordering: .relaxed)
      reduction.hasNewDeliveries.pointer.pointee = false
      reduction.beginBatch(thread: me)
      body()
      if let chain = chain.pointer.pointee {
        drainPending(chain)
      } else {
        var actions: [any Action] = []
        while let action = pending.pointer.pointee.popFirst() { actions.append(action) }
        reduction.commitAll(actions, thread: me)
      }
      delivered = reduction.endBatch()
      reduction.owner.store(0, ordering: .relaxed)
    }
    if delivered { deliverOrScheduleDelivery() }
  }
}
