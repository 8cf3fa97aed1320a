import CounterModel
import Foundation
import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

@Suite(.catchesHangs) struct CounterExampleTests {
  @Test func reducerIsAPlainFunction() {
    let initial = counterReducer(action: StatecraftInit(), state: nil)
    #expect(initial == AppState(count: 0))
    let incremented = counterReducer(action: CounterAction.increment, state: initial)
    #expect(incremented.count == 1)
    #expect(counterReducer(action: CounterAction.reset, state: incremented).count == 0)
  }

  @MainActor
  @Test func counterStepByStepWithATestStore() async {
    let store = TestStore(initialState: AppState(), reducer: counterReducer)
    await store.send(CounterAction.increment) { $0.count = 1 }
    await store.send(CounterAction.increment) { $0.count = 2 }
    await store.send(CounterAction.reset) { $0.count = 0 }
    await store.finish()
  }

  @Test func counterRendersEachChange() async throws {
    let output = try await runCounter(input: "+\n+\n-\nnope\n0\nq\n")
    #expect(
      output == """
        commands: + increments, - decrements, 0 resets, q quits
        count: 0
        > count: 1
        > count: 2
        > count: 1
        > unknown command "nope"; commands: + increments, - decrements, 0 resets, q quits
        > count: 0
        > bye

        """)
  }

  @Test func counterEndsWhenInputIsClosed() async throws {
    let output = try await runCounter(input: "+\n")
    #expect(output.hasSuffix("count: 1\n> bye\n"))
  }

  @Test func aRecordedSessionCanBeInspected() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "counter-\(UUID().uuidString).jsonl")
    defer { try? FileManager.default.removeItem(at: file) }
    _ = try await runCounter(input: "+\n+\n-\nq\n", arguments: ["--record", file.path])
    let listing = try await runExample("inspect", arguments: [file.path])
    let lines = listing.split(separator: "\n").map { $0.split(separator: "\t").last ?? "" }
    #expect(
      lines == [
        "StatecraftInit", "CounterAction increment", "CounterAction increment",
        "CounterAction decrement", "4 actions; state CounterModel.AppState",
      ])
    // The state as the counter recorded it: inspect knows nothing of the counter.
    let state = try await runExample("inspect", arguments: [file.path, "--state", "3"])
    #expect(state == "{\n  \"count\": 2\n}\n")
  }

  private func runCounter(input: String, arguments: [String] = []) async throws -> String {
    try await runExample("counter", arguments: arguments, input: input)
  }
}
