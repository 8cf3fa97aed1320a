import Dispatch
import StatecraftPrimitives

/// A length of time to wait, such as a timeout or a debounce, usable on every system the package
/// supports: `Duration` and `ContinuousClock` need macOS 13 and iOS 16.
///
/// Write it as `.milliseconds(250)` or `.seconds(2)`; on newer systems `Interval(duration)`
/// converts a `Duration`.
public struct Interval: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The length in nanoseconds.
  /// - Complexity: O(1).
  public let nanoseconds: UInt64

  /// Creates an interval of `nanoseconds`.
  ///
  /// - Parameter nanoseconds: The length in nanoseconds.
  /// - Complexity: O(1).
  public init(nanoseconds: UInt64) {
    self.nanoseconds = nanoseconds
  }

  /// No time at all.
  /// - Complexity: O(1).
  public static let zero = Interval(nanoseconds: 0)

  /// An interval of `milliseconds`.
  ///
  /// - Parameter milliseconds: The length in milliseconds.
  /// - Returns: The interval.
  /// - Complexity: O(1).
  public static func milliseconds(_ milliseconds: Int) -> Interval {
    Interval(nanoseconds: UInt64(max(0, milliseconds)) * 1_000_000)
  }

  /// An interval of `seconds`.
  ///
  /// - Parameter seconds: The length in seconds.
  /// - Returns: The interval.
  /// - Complexity: O(1).
  public static func seconds(_ seconds: Double) -> Interval {
    Interval(nanoseconds: UInt64(max(0, seconds) * 1e9))
  }

  /// The same length as `duration`.
  ///
  /// - Parameter duration: A duration; negative ones become zero.
  /// - Complexity: O(1).
  @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
  public init(_ duration: Duration) {
    let (whole, fraction) = duration.components
    self.init(
      nanoseconds: whole < 0 ? 0 : UInt64(whole) * 1_000_000_000 + UInt64(fraction / 1_000_000_000))
  }

  /// The length in seconds, for messages.
  var seconds: Double {
    Double(nanoseconds) / 1e9
  }

  /// The length in milliseconds or seconds, for messages: "250 ms", "2 s".
  /// - Complexity: O(1).
  public var description: String {
    nanoseconds < 1_000_000_000 ? "\(nanoseconds / 1_000_000) ms" : "\(seconds) s"
  }

  /// Whether `lhs` is shorter than `rhs`.
  /// - Complexity: O(1).
  public static func < (lhs: Interval, rhs: Interval) -> Bool {
    lhs.nanoseconds < rhs.nanoseconds
  }
}

extension MonotonicClock {
  /// Suspends the task for `interval`, or until it is cancelled.
  package static func sleep(for interval: Interval) async {
    try? await Task.sleep(nanoseconds: interval.nanoseconds)
  }
}
