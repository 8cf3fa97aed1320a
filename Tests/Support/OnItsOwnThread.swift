import Foundation
import Statecraft
import StatecraftPrimitives

/// Runs `body` on a thread of its own, off the cooperative pool, and awaits what it returns, or
/// `nil` if it has not returned after `limit`.
///
/// For blocking work in tests (child processes, sockets, semaphores): on the cooperative pool it
/// would hold one of the few threads every other test's tasks need, which on a two-core machine
/// are two. The limit only catches a hang, so it is generous; a hung `body` is left behind on
/// its thread.
public func onItsOwnThread<Value: Sendable>(
  failingAfter limit: Interval = .patience, _ body: @escaping @Sendable () -> Value
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
      try? await Task.sleep(nanoseconds: limit.nanoseconds)
      resume(nil)
    }
  }
}
