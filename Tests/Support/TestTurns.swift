import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How many tests of the run do their work at once; the others await their turn.
///
/// Swift Testing starts every test of a run at once. On a machine with two cores, four hundred
/// tests then share them, and a test's clock measures its wait for the processor rather than its
/// work. Taking turns keeps the processors for a few tests at a time, so that what a test awaits
/// (a delivery, a task it started) runs soon, and its ``TimeBound`` counts its own time.
///
/// Waiting for a turn suspends the test's task; it blocks no thread. `STATECRAFT_TEST_TURNS`
/// overrides the number (at least 1).
public final class TestTurns: @unchecked Sendable {
  // @unchecked Sendable: `free` and `waiting` are read and written only under `lock`.
  private let lock = DispatchSemaphore(value: 1)
  private var free: Int
  private var waiting: [CheckedContinuation<Void, Never>] = []
  private var next = 0

  /// The run's turns.
  public static let shared = TestTurns(count: defaultCount)

  static var defaultCount: Int {
    if let text = getenv("STATECRAFT_TEST_TURNS").map({ String(cString: $0) }),
      let count = Int(text), count >= 1
    {
      return count
    }
    return 4
  }

  /// Turns for `count` tests at a time.
  public init(count: Int) {
    free = count
  }

  /// The turns whose turn the current task (or a task it started) has: a scope inside a test's
  /// scope takes none.
  @TaskLocal private static var held: ObjectIdentifier?

  /// Runs `body` once a turn is free, and frees it when `body` returns or throws.
  ///
  /// A task that already has a turn (a test's own scope, nested) runs `body` at once.
  public func withTurn<Result>(
    _ body: () async throws -> Result
  ) async rethrows -> Result {
    if Self.held == ObjectIdentifier(self) { return try await body() }
    await take()
    defer { give() }
    return try await Self.$held.withValue(ObjectIdentifier(self)) { try await body() }
  }

  private func take() async {
    lock.wait()
    if free > 0 {
      free -= 1
      lock.signal()
      return
    }
    await withCheckedContinuation { continuation in
      waiting.append(continuation)
      lock.signal()
    }
  }

  private func give() {
    lock.wait()
    if next < waiting.count {
      let continuation = waiting[next]
      next += 1
      if next == waiting.count {
        waiting.removeAll(keepingCapacity: true)
        next = 0
      }
      lock.signal()
      continuation.resume()  // the turn passes to the longest waiter
    } else {
      free += 1
      lock.signal()
    }
  }
}
