import Foundation
import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

@testable import Search

@Suite(.catchesHangs) struct SearchExampleTests {
  private struct StubDirectory: CharacterDirectory {
    func names() throws -> [String] { ["Han Solo", "Hanna", "Leia"] }
  }

  @MainActor
  @Test func aSearchStartsThenFinishesWithTheMatches() async {
    let store = TestStore(initialState: SearchState(), reducer: searchReducer)
    store.thunkEnvironment[DirectoryKey.self] = StubDirectory()
    store.thunkEnvironment[DebounceKey.self] = .zero
    await store.send(search("han"))
    await store.receive(SearchAction.self) {
      $0.query = "han"
      $0.isSearching = true
    }
    await store.receive(SearchAction.self) {
      $0.results = ["Han Solo", "Hanna"]
      $0.isSearching = false
    }
    await store.finish()
  }

  @Test func aNewQueryCancelsTheOneWaitingForTheDebounce() async throws {
    let store = Store<SearchState>(reducer: searchReducer, state: nil)
    let clock = TestClock()
    store.thunkEnvironment[DirectoryKey.self] = StubDirectory()
    store.thunkEnvironment[DebounceKey.self] = .milliseconds(200)
    store.thunkEnvironment[ThunkClockKey.self] = clock
    let first = store.dispatch(search("h"))
    let second = store.dispatch(search("lei"))
    #expect(
      await eventually { clock.sleeperCount == 1 && first.cancellationReason != nil })
    await clock.advance(by: .milliseconds(199))
    #expect(store.state.results.isEmpty, "still waiting for the debounce")
    await clock.advance(by: .milliseconds(1))
    try await second.value
    #expect(first.cancellationReason != nil)
    #expect(store.state.results == ["Leia"])
    #expect(store.state.query == "lei")
  }

  @Test func typingFastShowsOnlyTheLastQuery() async throws {
    // The one test of the real clock, end to end: the three lines go into the pipe in one write,
    // so the program reads them microseconds apart; a debounce of 1 s leaves a wide margin for
    // a busy machine. The clock-driven tests above check the timing itself.
    let output = try await runExample(
      "search", arguments: ["--debounce-ms", "1000"], input: "l\nlu\nluk\n")
    let lines = output.components(separatedBy: "\n")
    #expect(
      lines.first == "type a name and return, as if typing in a search field (l, lu, luk); q quits")
    #expect(output.hasSuffix("\"luk\": Luke Skywalker\n"))
    #expect(output.components(separatedBy: ": ").count == 2, "one list of results: \(output)")
  }

  /// Issue 29: `q` alone quits, as in the other examples, instead of searching for "q".
  @Test func qQuits() async throws {
    let output = try await runExample(
      "search", arguments: ["--debounce-ms", "0"], input: "luk\nq\nlei\n")
    #expect(output.contains("Luke Skywalker"))
    #expect(!output.contains("Leia"), "read past q: \(output)")
  }

}
