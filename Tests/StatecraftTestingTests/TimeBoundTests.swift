import StatecraftTestSupport
import Testing

/// The time limit every suite carries must fail a test that runs past it, and cancel it.
@Suite(.bounded(minutes: 1)) struct TimeBoundTests {
  @Test func aTestPastItsLimitFailsAndIsCancelled() async throws {
    let test = try #require(Test.current)
    try await withKnownIssue {
      try await TimeBound(nanoseconds: 20_000_000).provideScope(for: test, testCase: nil) {
        try await Task.sleep(nanoseconds: 60_000_000_000)
      }
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("ran longer than")
    }
  }

  @Test func aTestWithinItsLimitRunsToTheEndWithoutAnIssue() async throws {
    let test = try #require(Test.current)
    let body = Ran()
    try await TimeBound(nanoseconds: 60_000_000_000).provideScope(for: test, testCase: nil) {
      await Task.yield()
      body.mark()
    }
    #expect(body.didRun)
  }
}

/// Set by the body once it ran to its end; read after the scope returned.
private final class Ran: @unchecked Sendable {
  private(set) var didRun = false
  func mark() { didRun = true }
}
