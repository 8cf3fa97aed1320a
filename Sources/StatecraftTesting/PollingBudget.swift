import Statecraft
import StatecraftPrimitives

/// The time limit of a wait that looks for something, sleeps or yields, and looks again.
///
/// Only time in which the waiting task could look counts: a gap between two looks longer than
/// ``longestGap`` counts as that much. Such a gap means the task was kept from running (the main
/// queue held by other work, a machine busy with other processes), and the work it waits for
/// may be queued right behind it; with the wall clock alone, the first look after the gap found
/// the limit passed and failed the test. That failed `TestStore` tests under ThreadSanitizer on
/// 2 cores while another test held the main queue for seconds.
struct PollingBudget {
  /// The most that one gap between two looks counts.
  static let longestGap: UInt64 = 10_000_000

  private var remaining: UInt64
  private var lastLook: UInt64
  private var tookLastLook = false

  /// A budget of `timeout`, counted from now.
  init(_ timeout: Interval) {
    remaining = timeout.nanoseconds
    lastLook = MonotonicClock.now
  }

  /// Counts the time since the last look, and returns whether to look again: while some of the
  /// limit is left, and once more after it ran out, so that the wait always sleeps or yields at
  /// least once past its limit before it gives up (work queued behind its wake-up then runs).
  mutating func look() -> Bool {
    let now = MonotonicClock.now
    let spent = min(now - lastLook, Self.longestGap)
    lastLook = now
    remaining -= min(spent, remaining)
    if remaining > 0 { return true }
    defer { tookLastLook = true }
    return !tookLastLook
  }
}
