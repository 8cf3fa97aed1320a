import Dispatch
import Foundation
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
///
/// A test cannot be left behind: its body is not escaping. One that ignores its cancellation
/// and has not ended `grace` after the limit stops the whole run, with a message that names it,
/// rather than holding it until CI's own limit.
public struct TimeBound: SuiteTrait, TestTrait, TestScoping {
  let nanoseconds: UInt64
  let grace: UInt64

  /// A limit of `nanoseconds`, and `grace` more for a test that was cancelled to end; suites
  /// write `.catchesHangs`.
  public init(nanoseconds: UInt64, grace: UInt64 = 60_000_000_000) {
    self.nanoseconds = nanoseconds
    self.grace = grace
  }

  public var isRecursive: Bool { true }

  public func scopeProvider(for test: Test, testCase: Test.Case?) -> TimeBound? {
    testCase == nil ? nil : self  // each test case on its own, not the suite as a whole
  }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await TestTurns.shared.withTurn {
      try await runWithinLimit(named: test.name, function)
    }
  }

  /// Runs `function` without waiting for a turn, within the limit; `name` names it in the issue
  /// and in the message that stops the run.
  public func runWithinLimit(
    named name: String, _ function: @Sendable () async throws -> Void
  ) async throws {
    let limit = nanoseconds
    let ended = HangWatch()
    defer { ended.end() }
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
          Issue.record("\(name) ran longer than \(limit / 1_000_000_000) s and was cancelled.")
          ended.stopTheRun(after: grace, unlessEnded: name)
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

/// Stops the process if a cancelled test has not ended within its grace: the group that runs the
/// test must await it, so only the process's end frees the run.
private final class HangWatch: Sendable {
  private let hasEnded = DispatchSemaphore(value: 0)

  func end() {
    hasEnded.signal()
  }

  func stopTheRun(after grace: UInt64, unlessEnded name: String) {
    let hasEnded = self.hasEnded
    // A thread, not a task: a test that ignores cancellation may be holding the pool's threads.
    Thread {
      guard hasEnded.wait(timeout: .now() + .nanoseconds(Int(clamping: grace))) == .timedOut
      else { return }
      FileHandle.standardError.write(
        Data(
          """
          \(name) did not end \(grace / 1_000_000_000) s after it was cancelled at its time \
          limit: stopping the test run.\n
          """.utf8))
      exit(EXIT_FAILURE)
    }.start()
  }
}
