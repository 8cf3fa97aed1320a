/// Keeps a closure subscription alive: a token that is not stored ends the subscription after
/// the first value; cancel it or release it to unsubscribe.
///
/// Returned by ``Store/subscribe(_:receive:)``. Store it for as long as the closure should be
/// called:
///
/// ```swift
/// final class CounterModel {
///   private var token: SubscriptionToken?
///
///   @MainActor func start() {
///     token = mainStore.subscribe({ $0.select(\.count) }, receive: { print("count:", $0) })
///   }
/// }
/// ```
public final class SubscriptionToken: Sendable {
  // One object, with no closure and no atomic cell of its own (Benchmarks/README.md, g).
  private weak let store: (any SubscriptionRemoving)?
  private let status: SubscriptionStatus

  init(store: any SubscriptionRemoving, status: SubscriptionStatus) {
    self.store = store
    self.status = status
  }

  deinit {
    cancel()
  }

  /// Ends the subscription.
  ///
  /// The closure is not called again, even later in a notification round that is running. Calling
  /// it again does nothing.
  /// - Complexity: O(1) amortized.
  public func cancel() {
    // Cleared here first, so that a round running on the main queue delivers nothing more
    // even before the registry's lock is taken; the exchange makes a second call do nothing.
    guard status.end() else { return }
    store?.removeSubscription(status: status)
  }
}

/// The store engine a ``SubscriptionToken`` ends its subscription in, whatever its state type.
@usableFromInline
protocol SubscriptionRemoving: AnyObject, Sendable {
  func removeSubscription(status: SubscriptionStatus)
}
