/// Keeps a closure subscription alive; cancel it or release it to unsubscribe.
///
/// Returned by ``Store/subscribe(_:receive:)-2xaid``. Store it for as long as the closure should be
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
  private let isCancelled = AtomicCell<Bool>(false)
  private let onCancel: @Sendable () -> Void

  init(onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = onCancel
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
    guard !isCancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
    onCancel()
  }
}
