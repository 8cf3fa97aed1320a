import Foundation

/// Runs `body` on a thread of its own and awaits its result.
///
/// For blocking work in a test (waiting for a child process, a semaphore, a socket): on the
/// cooperative pool it would hold one of the few threads every other test's tasks need, which
/// on a two-core machine are two.
///
/// - Parameter body: The blocking work.
/// - Returns: What `body` returned.
/// - Throws: What `body` threw.
public func onOwnThread<Value: Sendable>(
  _ body: @escaping @Sendable () throws -> Value
) async throws -> Value {
  try await withCheckedThrowingContinuation { continuation in
    let thread = Thread {
      continuation.resume(with: Result<Value, any Error> { try body() })
    }
    thread.stackSize = 1 << 20
    thread.start()
  }
}
