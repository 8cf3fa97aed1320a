extension Store {
  /// Whether subscribers hear of the latest state once per turn of the main queue instead of every
  /// committed state.
  ///
  /// Off by default.
  ///
  /// Turn it on for a store that commits faster than the screen can show, such as one fed by a
  /// stream of sensor or network events:
  ///
  /// ```swift
  /// mainStore.coalescesNotifications = true
  /// ```
  ///
  /// > Important: When on, the store keeps only the latest undelivered state, and a dispatch
  /// > on the main queue no longer notifies before it returns: subscribers are notified on the
  /// > next turn of the main queue, once, with the latest state. Skipped states are not
  /// > delivered; events that must not be lost belong in a ``Pulse``, which keeps them in the
  /// > state. Every other guarantee holds.
  public var coalescesNotifications: Bool {
    get { core.coalescesNotifications.load(ordering: .relaxed) }
    set {
      core.committed.withLock { $0.coalesces = newValue }
      core.coalescesNotifications.store(newValue, ordering: .relaxed)
    }
  }
}
