import Foundation
import Statecraft

/// Runs `body` on a thread of its own, off the cooperative pool, and awaits what it returns, or
/// `nil` if it has not returned after `seconds`.
///
/// For blocking work in tests (sockets, semaphores): the pool's threads stay free for other
/// tests. The limit only catches a hang, so it is generous; a hung `body` is left behind on its
/// thread.
public func onItsOwnThread<Value: Sendable>(
  failingAfter seconds: Int = 30, _ body: @escaping @Sendable () -> Value
) async -> Value? {
  let isResumed = Locked(false)
  return await withCheckedContinuation { continuation in
    let resume: @Sendable (Value?) -> Void = { value in
      let first = isResumed.withLock { isResumed in
        defer { isResumed = true }
        return !isResumed
      }
      if first { continuation.resume(returning: value) }
    }
    Thread { resume(body()) }.start()
    Task {
      try? await Task.sleep(nanoseconds: UInt64(seconds) * 1_000_000_000)
      resume(nil)
    }
  }
}
