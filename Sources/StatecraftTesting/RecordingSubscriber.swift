import Statecraft
import StatecraftPrimitives

/// A subscriber that records every value it receives, for tests of subscriptions.
///
/// ```swift
/// let recorder = RecordingSubscriber<Int>()
/// store.subscribe(recorder) { $0.select(\.count) }
/// store.dispatch(Increment())
/// #expect(recorder.values == [0, 1])
/// ```
@MainActor
public final class RecordingSubscriber<Value>: StoreSubscriber {
  /// Every value received, in order.
  /// - Complexity: O(1).
  public private(set) var values: [Value] = []

  /// Creates a subscriber that has received nothing.
  /// - Complexity: O(1).
  public init() {}

  /// Records `state`.
  ///
  /// - Parameter state: The value the store delivered.
  /// - Complexity: O(1) amortized.
  public func newState(state: Value) {
    values.append(state)
  }

  /// Waits, letting the main queue run, until `count` values have arrived or `timeout` passes.
  ///
  /// Deliveries of states committed on other threads arrive on the main queue soon after
  /// their dispatch; call this before checking ``values`` in that case.
  ///
  /// - Parameters:
  ///   - count: How many values to wait for.
  ///   - timeout: How long to wait at most. Time in which the main actor was kept from
  ///     running counts at most 10 ms a gap, so a main queue held by other work does not use it
  ///     up.
  /// - Returns: Whether `count` values arrived in time.
  /// - Complexity: O(1) per check; checks every millisecond until `count` values arrived or
  ///   `timeout` passed.
  @discardableResult
  public func waitForValues(count: Int, timeout: Interval = .seconds(2)) async -> Bool {
    var budget = PollingBudget(timeout)
    while values.count < count, budget.look() {
      await MonotonicClock.sleep(for: .milliseconds(1))
    }
    return values.count >= count
  }
}
