import Dispatch
import Statecraft
import StatecraftPrimitives

/// Whether `operation` returns within `limit`; a hung operation is left behind, unawaited, so
/// that the test fails instead of hanging.
public func endsWithin(
  _ limit: Interval, _ operation: @escaping @Sendable () async -> Void
) async -> Bool {
  let claimed = Claimed()
  return await withCheckedContinuation { continuation in
    let resume: @Sendable (Bool) -> Void = { ended in
      if claimed.claim() { continuation.resume(returning: ended) }
    }
    Task {
      await operation()
      resume(true)
    }
    Task {
      try? await Task.sleep(nanoseconds: limit.nanoseconds)
      resume(false)
    }
  }
}

/// True for the first caller of ``claim()`` only.
private final class Claimed: @unchecked Sendable {
  // @unchecked Sendable: `isClaimed` is read and written under `lock`.
  private let lock = DispatchSemaphore(value: 1)
  private var isClaimed = false

  func claim() -> Bool {
    lock.wait()
    defer { lock.signal() }
    defer { isClaimed = true }
    return !isClaimed
  }
}

/// Whether `condition` holds within ``Interval/patience``, looked at every millisecond.
///
/// For a condition that other threads make true and that has no event to await; the looking
/// sleeps between looks, so it leaves the processor to the work it waits for.
nonisolated(nonsending) public func eventually(_ condition: () -> Bool) async -> Bool {
  let deadline = MonotonicClock.now + Interval.patience.nanoseconds
  while !condition() {
    guard MonotonicClock.now < deadline else { return false }
    try? await Task.sleep(nanoseconds: 1_000_000)
  }
  return true
}
