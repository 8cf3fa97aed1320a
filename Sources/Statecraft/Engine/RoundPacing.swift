import Dispatch

/// When and how a round for other threads' commits is posted to the main queue (C7): at once if
/// none started in the last millisecond, else at the end of that millisecond.
///
/// A value of closures, so that tests can replace the clock and the posting and check the pacing
/// without waiting for time to pass. `MainLoop` owns the time before which the next round may
/// start.
///
/// Without pacing, a burst from other threads with the main queue free ran a round every 6-11 µs,
/// and each cost a dispatching thread a wake-up of the main queue and the round a turn at the
/// state lock: 4 threads dispatching to a store with one subscriber ran at about 0.6× a bare
/// mutex around the same reducer (Benchmarks/README.md, n).
@usableFromInline
struct RoundPacing: Sendable {
  /// The shortest time between the starts of two scheduled rounds, in nanoseconds.
  @usableFromInline static let interval: UInt64 = 1_000_000

  /// The time now, in nanoseconds, on a clock that only moves forward.
  @usableFromInline let _now: @Sendable () -> UInt64
  /// Runs a round on the main queue after a delay in nanoseconds (0: as soon as it can).
  @usableFromInline let _post: @Sendable (UInt64, @escaping @Sendable () -> Void) -> Void

  @usableFromInline
  init(
    now: @escaping @Sendable () -> UInt64,
    post: @escaping @Sendable (UInt64, @escaping @Sendable () -> Void) -> Void
  ) {
    _now = now
    _post = post
  }

  /// The main dispatch queue, and the clock its `asyncAfter` counts with.
  @usableFromInline
  static let mainQueue = RoundPacing(
    now: { DispatchTime.now().uptimeNanoseconds },
    post: { delay, round in
      if delay == 0 {
        DispatchQueue.main.async(execute: round)
      } else {
        DispatchQueue.main.asyncAfter(
          deadline: .now() + .nanoseconds(Int(clamping: delay)), execute: round)
      }
    })
}
