import Dispatch
import Testing

/// A time limit on every test of a suite that catches a hang, on every system the package supports.
///
/// Swift Testing's `.timeLimit` needs macOS 13 and iOS 16, above the package's floor (macOS 12,
/// iOS 15), so a suite that names it does not compile there. This limit behaves the same: a test
/// that runs past it fails and is cancelled. Work that ignores cancellation still has to end;
/// tests that await such work wrap it in `endsWithin`.
///
/// The clock starts when the test gets its turn (see ``TestTurns``), not when the run starts it:
/// the limit bounds the test's own work, never its wait behind the others. It only exists to
/// catch a hang, so it is generous: a test is expected to end far within it even on a busy,
/// sanitized machine.
public struct TimeBound: SuiteTrait, TestTrait, TestScoping {
  let nanoseconds: UInt64

  /// A limit of `nanoseconds`; suites write `.bounded(minutes:)`.
  public init(nanoseconds: UInt64) {
    self.nanoseconds = nanoseconds
  }

  public var isRecursive: Bool { true }

  public func scopeProvider(for test: Test, testCase: Test.Case?) -> TimeBound? {
    testCase == nil ? nil : self  // each test case on its own, not the suite as a whole
  }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await TestTurns.shared.withTurn {
      try await runWithinLimit(test, function)
    }
  }

  /// Runs `function` without waiting for a turn, within the limit.
  func runWithinLimit(
    _ test: Test, _ function: @Sendable () async throws -> Void
  ) async throws {
    let limit = nanoseconds
    try await withoutActuallyEscaping(function) { function in
      try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
          try await function()
          return true
        }
        group.addTask {
          try await Task.sleep(nanoseconds: limit)
          return false
        }
        defer { group.cancelAll() }
        if try await group.next() == false {
          Issue.record("\(test.name) ran longer than \(limit / 1_000_000_000) s and was cancelled.")
        }
      }
    }
  }
}

extension Trait where Self == TimeBound {
  /// Fails each test that runs longer than `minutes` after its turn came, and stops waiting for it.
  ///
  /// - Parameter minutes: The limit.
  /// - Returns: The trait.
  public static func bounded(minutes: Int) -> Self {
    TimeBound(nanoseconds: UInt64(minutes) * 60 * 1_000_000_000)
  }

  /// The limit every suite carries: five minutes of a test's own time, to catch a hang.
  ///
  /// No test comes near it: the slowest take seconds under ThreadSanitizer beside ten CPU hogs.
  /// A test that ends within it passes whatever the load; one that hangs fails and is cancelled.
  public static var catchesHangs: Self { .bounded(minutes: 5) }
}
