extension Store {
  /// Whether subscribers hear of the newest state instead of every committed state.
  ///
  /// Always `true`: every store delivers the newest committed state when the main queue gets to
  /// it, and skips states that were superseded before then. Setting it does nothing. What needs
  /// every action (logging, analytics, replay) uses ``actions()`` or a middleware; an event that
  /// every subscriber must see belongs in a ``Pulse``.
  ///
  /// - Complexity: O(1).
  @available(
    *, deprecated,
    message: "Every store now delivers the newest state; remove this line. See Store.actions()."
  )
  public var coalescesNotifications: Bool {
    get { true }
    // swift-format-ignore: NoEmptyClosureBodies
    set {}
  }
}
