import Foundation
import StatecraftTestSupport
import Testing

/// The time limit every suite carries must fail a test that runs past it, and cancel it.
@Suite(.catchesHangs) struct TimeBoundTests {
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

  /// A body cannot be left behind (it is not escaping): one that ignores its cancellation stops
  /// the run once its grace is over, naming the test, instead of holding the run for ever.
  @Test func aTestThatIgnoresItsCancellationStopsTheRunAfterItsGrace() async {
    var result: ExitTest.Result?
    // The child records the limit's issue, which comes back to this test: known, as expected.
    await withKnownIssue {
      result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        limitThisChildProcess()
        try await TimeBound(nanoseconds: 50_000_000, grace: 100_000_000)
          .runWithinLimit(named: "theHungTest()") {
            while true { try? await Task.sleep(nanoseconds: 1_000_000) }  // ignores cancellation
          }
      }
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("theHungTest() ran longer than")
    }
    let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(errors.contains("theHungTest() did not end 0 s after it was cancelled"), "\(errors)")
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

/// Tests take turns so that a test's time limit counts its own work, not its wait behind others.
@Suite(.catchesHangs) struct TestTurnsTests {
  @Test func noMoreBodiesRunAtOnceThanThereAreTurns() async {
    let turns = TestTurns(count: 2)
    let running = Counter()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<20 {
        group.addTask {
          await turns.withTurn {
            running.enter()
            await Task.yield()
            running.leave()
          }
        }
      }
    }
    #expect(running.most == 2)
    #expect(running.now == 0)
  }

  @Test func aScopeInsideATestsTurnTakesNoOtherTurn() async {
    let turns = TestTurns(count: 1)
    let ran = await turns.withTurn {
      await turns.withTurn { true }  // would wait forever if it needed a second turn
    }
    #expect(ran)
  }
}

/// Counts bodies running at once, under a lock.
private final class Counter: @unchecked Sendable {
  // @unchecked Sendable: every stored property is read and written under `lock`.
  private let lock = NSLock()
  private var running = 0
  private var highest = 0

  func enter() {
    lock.lock()
    defer { lock.unlock() }
    running += 1
    highest = max(highest, running)
  }

  func leave() {
    lock.lock()
    defer { lock.unlock() }
    running -= 1
  }

  var most: Int { lock.withLock { highest } }
  var now: Int { lock.withLock { running } }
}
