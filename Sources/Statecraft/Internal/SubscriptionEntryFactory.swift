/// Builds a subscription's pipeline: the user's transform, automatic skip-repeats, and the sink.
enum SubscriptionEntryFactory {
  @MainActor
  static func make<State: Sendable, SelectedState>(
    core: StoreCore<State>,
    owner: ObjectIdentifier?,
    transform: (Subscription<State>) -> Subscription<SelectedState>,
    sink: @escaping @MainActor (SubscriptionEntry<State>, SelectedState) -> Void
  ) -> (entry: SubscriptionEntry<State>, initial: State) {
    let relay = Relay<State>()
    var selected = transform(Subscription { relay.downstream = $0 })
    if core.automaticallySkipsRepeats, let isEqual = equality(of: SelectedState.self) {
      selected = selected.skipRepeats(isEqual)
    }
    // Read the state and count the subscription in one critical section: every commit after
    // this read is then queued for delivery, and the version gate drops those before it.
    let (state, version) = core.committed.withLock { committed in
      committed.subscriptionCount += 1
      return (committed.state, committed.version)
    }
    guard let state else { Misuse.noState() }
    let entry = SubscriptionEntry<State>(owner: owner, startVersion: version)
    selected.attach { [weak entry] value in
      guard let entry else { return }
      sink(entry, value)
    }
    entry.connect(relay.downstream)
    return (entry, state)
  }

  /// `==` for `Value` when it is `Equatable`, found at run time so that generic code gets
  /// automatic skip-repeats too.
  static func equality<Value>(of type: Value.Type) -> ((Value, Value) -> Bool)? {
    guard let equatable = type as? any Equatable.Type else { return nil }
    return equatable.sameTypeEquality(as: type)
  }
}

/// The first step of a subscription: hands the store's states to the steps the transform added.
private final class Relay<State> {
  var downstream: (State) -> Void = { _ in }
}

extension Equatable {
  /// `==` usable where `Value` is only known to be `Self` at run time.
  fileprivate static func sameTypeEquality<Value>(as type: Value.Type) -> (Value, Value) -> Bool {
    precondition(Value.self == Self.self)
    // Value and Self are the same type, checked above, so the bit casts are identities.
    return { lhs, rhs in unsafeBitCast(lhs, to: Self.self) == unsafeBitCast(rhs, to: Self.self) }
  }
}
