import Dispatch
import StatecraftTestSupport
import Testing

@testable import Statecraft

/// The development checks of debug builds (issue 31): each reports once, names the action or the
/// type at fault and says what to do, and each can be switched off. The limits are process-wide,
/// so the tests that change them run in a child process.
@Suite(.catchesHangs) struct DevelopmentChecksTests {
  struct Tick: Action {}
  struct Other: Action {}

  // MARK: The counting, with the times given

  @MainActor
  @Test func aSlowReductionOnTheMainQueueIsReportedOncePerActionType() {
    var checks = ReductionChecks()
    #expect(checks.note(Tick(), took: 5_000_000, at: 1) == nil, "5 ms is within a frame")
    let warning = checks.note(Tick(), took: 20_000_000, at: 2)
    #expect(
      warning?.contains("reducing Tick took 20 ms on the main queue, more than 16 ms") == true)
    #expect(warning?.contains("compute it in a Thunk") == true)
    #expect(warning?.contains("developmentChecks.slowReduction") == true)
    #expect(checks.note(Tick(), took: 40_000_000, at: 3) == nil, "reported once for Tick")
    #expect(checks.note(Other(), took: 40_000_000, at: 4)?.contains("reducing Other") == true)
  }

  @Test func aSlowReductionOffTheMainQueueIsNotReported() async {
    let pending = await Task.detached {
      var checks = ReductionChecks()
      return checks.note(Tick(), took: 100_000_000, at: 1)
    }.value
    #expect(pending == nil)
  }

  @Test func moreActionsOfOneTypeThanTheLimitWithinASecondAreReportedOnce() {
    var checks = ReductionChecks()
    let second: UInt64 = 1_000_000_000
    // 1,000 in the first second, then the window starts again: no storm.
    var warnings: [String] = []
    for index in 0..<1_000 {
      warnings += checks.note(Tick(), took: 0, at: second + UInt64(index)).map { [$0] } ?? []
    }
    for index in 0..<1_000 {
      warnings += checks.note(Tick(), took: 0, at: 2 * second + UInt64(index)).map { [$0] } ?? []
    }
    #expect(warnings.isEmpty)
    #expect(checks.note(Other(), took: 0, at: 2 * second + 5_000) == nil)
    let warning = checks.note(Tick(), took: 0, at: 2 * second + 10_000)
    #expect(warning?.contains("Tick was dispatched more than 1000 times within a second") == true)
    #expect(warning?.contains("skipRepeats") == true)
    let later = (0..<2_000).compactMap { _ in
      checks.note(Tick(), took: 0, at: 2 * second + 20_000)
    }
    #expect(later.isEmpty, "reported once for Tick")
  }

  // MARK: References in the state

  final class Session {}
  struct Profile {
    var name = ""
    var session = Session()
  }
  struct WithReference {
    var count = 0
    var profile = Profile()
  }
  struct Items {
    var values: [Int] = [1, 2]
    var sessions: [Session] = [Session()]
  }

  @Test func theFirstReferenceInAStateIsFoundWithItsPath() {
    let found = StatecraftDiagnostics.firstReference(in: WithReference())
    #expect(found?.path == "profile.session")
    #expect(found.map { $0.type == Session.self } == true)
    #expect(StatecraftDiagnostics.firstReference(in: Items())?.path == "sessions[0]")
    let values: [String: [Int]] = ["a": [1], "b": [2, 3]]
    #expect(StatecraftDiagnostics.firstReference(in: values) == nil)
    #expect(StatecraftDiagnostics.firstReference(in: (1, "two", [3.0])) == nil)
  }

  @Test func theSearchStopsAtItsBudget() {
    struct Deep {
      var levels: [[[[Int]]]] = [[[[1]]]]
      var session = Session()
    }
    #expect(StatecraftDiagnostics.firstReference(in: Deep(), budget: 2) == nil)
    #expect(StatecraftDiagnostics.firstReference(in: Deep())?.path == "session")
  }

  @MainActor
  @Test func aStoreWhoseStateHoldsAReferenceIsReportedOncePerStateType() {
    struct Reported: Sendable {
      final class Cache: @unchecked Sendable {}
      var cache = Cache()
    }
    let warnings = Log<String>()
    StatecraftDiagnostics.$warningHandler.withValue(
      { warnings.append($0) },
      operation: {
        _ = Store<Reported>(reducer: { (_: inout Reported, _: any Action) in }, state: Reported())
        _ = Store<Reported>(reducer: { (_: inout Reported, _: any Action) in }, state: Reported())
      })
    #expect(warnings.elements.count == 1)
    let warning = warnings.elements.first ?? ""
    #expect(warning.contains("Reported holds an instance of the class Cache at cache"))
    #expect(warning.contains("Make Cache a struct"))
    #expect(warning.contains("referencesInState = false"))
  }

  // MARK: In a store, with the limits changed (a child process each)

  @Test func aStoreReportsASlowReductionAndAStormThroughTheWarningHandler() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      limitThisChildProcess()
      StatecraftDiagnostics.developmentChecks.slowReduction = Interval(nanoseconds: 1)
      StatecraftDiagnostics.developmentChecks.actionStormLimit = 10
      await MainActor.run {
        let store = Store<Int>(reducer: { action, state in (state ?? 0) + 1 }, state: 0)
        for _ in 0..<30 { store.dispatch(Tick()) }
      }
    }
    let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    #expect(output.components(separatedBy: "reducing Tick took").count - 1 == 1)
    #expect(output.components(separatedBy: "Tick was dispatched more than 10 times").count - 1 == 1)
  }

  @Test func checksSwitchedOffReportNothing() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      limitThisChildProcess()
      StatecraftDiagnostics.developmentChecks = .none
      #expect(StatecraftDiagnostics.developmentChecks == .none)
      final class Session: @unchecked Sendable {}
      struct State: Sendable { var session = Session() }
      await MainActor.run {
        let store = Store<State>(reducer: { (_: inout State, _: any Action) in }, state: State())
        for _ in 0..<5_000 { store.dispatch(Tick()) }
      }
      print("done")
    }
    let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    #expect(output == "done\n")
  }

  @Test func theDefaultsAreAFrameAThousandAndEveryCheckOn() {
    let defaults = DevelopmentChecks()
    #expect(defaults.slowReduction == .milliseconds(16))
    #expect(defaults.actionStormLimit == 1_000)
    #expect(defaults.referencesInState && defaults.unrecordableActions)
  }
}
