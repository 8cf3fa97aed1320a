import Foundation
import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import StatecraftTools
import Testing

@Suite(.catchesHangs) struct RecordingTests {
  enum CounterAction: Action, Codable, Equatable {
    case increment
    case add(Int)
  }
  struct Secret: Action {}  // not Codable: recorded by name only

  struct Count: Equatable, Sendable { var value = 0 }

  static let reducer: Reducer<Count> = { action, state in
    var state = state ?? Count()
    switch action as? CounterAction {
    case .increment: state.value += 1
    case .add(let amount): state.value += amount
    case nil: break
    }
    return state
  }

  static var registry: ActionRegistry {
    var registry = ActionRegistry()
    registry.register(CounterAction.self)
    return registry
  }

  /// Records `count` additions and returns the file.
  private func record(_ count: Int, in folder: TemporaryFolder) throws -> URL {
    let file = folder.url.appendingPathComponent("session.jsonl")
    let recorder = try ActionRecorder<Count>(file: file, registry: Self.registry)
    for amount in 0..<count { recorder.record(CounterAction.add(amount)) }
    recorder.close()
    return file
  }

  @Test func aRecordingPastTheSizeLimitIsCutAndSaysWhere() throws {
    let folder = try TemporaryFolder()
    let file = try record(1_000, in: folder)
    let size = try #require(
      try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
    let recording = try Recording(
      contentsOf: file, registry: Self.registry, maximumFileSize: size / 2)
    let kept = recording.entries.count
    #expect(kept > 400 && kept < 600)
    // Line 1 is the header.
    #expect(recording.problems.map(\.line) == [kept + 2])
    #expect(recording.problems.map(\.reason) == [.cut(limit: size / 2)])
    #expect(recording.stoppedAtLine == kept + 2)
    #expect(recording.entries.last?.action as? CounterAction == .add(kept - 1))
    // The whole file within the limit is read whole.
    #expect(
      try Recording(contentsOf: file, registry: Self.registry, maximumFileSize: size)
        .entries.count == 1_000)
  }

  @Test func aLineLongerThanTheLimitStopsReadingThere() throws {
    let folder = try TemporaryFolder()
    let file = try record(3, in: folder)
    let handle = try FileHandle(forWritingTo: file)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(repeating: UInt8(ascii: "x"), count: 2 * 1_024 * 1_024))
    try handle.write(contentsOf: Data("\n".utf8))
    try handle.close()
    let recording = try Recording(
      contentsOf: file, registry: Self.registry, maximumLineLength: 1_024 * 1_024)
    #expect(recording.entries.count == 3)
    // The header is line 1, the actions lines 2 to 4.
    #expect(recording.problems.map(\.line) == [5])
    #expect(recording.problems.map(\.reason) == [.lineTooLong(limit: 1_024 * 1_024)])
    #expect(recording.stoppedAtLine == 5)
  }

  @Test func aRecordingIsReadLineByLineAcrossBlocks() throws {
    let folder = try TemporaryFolder()
    // 5,000 lines span many 64 KiB blocks, so lines are split between blocks.
    let file = try record(5_000, in: folder)
    let recording = try Recording(contentsOf: file, registry: Self.registry)
    #expect(recording.problems.isEmpty)
    #expect(recording.entries.map(\.line) == Array(2...5_001))  // after the header
    #expect(
      recording.entries.map { $0.action as? CounterAction }
        == (0..<5_000).map { CounterAction.add($0) })
  }

  @Test func recordsAndReplaysToTheSameState() throws {
    let folder = try TemporaryFolder()
    let file = folder.url.appendingPathComponent("session.jsonl")
    let recorder = try ActionRecorder<Count>(file: file, registry: Self.registry)
    let store = Store(reducer: Self.reducer, state: nil, middleware: [recorder.middleware()])
    store.dispatch(CounterAction.increment)
    store.dispatch(CounterAction.add(5))
    store.dispatch(Secret())
    recorder.close()

    let recording = try Recording(contentsOf: file, registry: Self.registry)
    #expect(recording.entries.count == 4)  // the init action, then the three
    // Secret by name; StatecraftInit is recorded and never replayed, a store dispatches its own.
    #expect(recording.problems.map(\.line) == [5])
    #expect(recording.problems.allSatisfy { "\($0)".contains("recorded by name only") })
    #expect(recording.entries.first?.payload == .object([:]))
    #expect(recording.entries.first?.action == nil)
    let fresh = Store(reducer: Self.reducer, state: nil)
    #expect(recording.replay(into: fresh) == 2)
    #expect(fresh.state == store.state)
    #expect(recording.state(after: 2, reducer: Self.reducer) == Count(value: 1))
  }

  @Test func anUnknownActionTypeIsReportedWithItsLine() throws {
    let data = try fixture("unknown-type.jsonl")
    let recording = Recording(data: data, registry: Self.registry)
    #expect(recording.problems.map(\.line) == [2])
    #expect(recording.problems.map(\.reason) == [.unknownType("App.RemovedAction")])
    #expect("\(recording.problems[0])".hasPrefix("line 2: the action type App.RemovedAction"))
    #expect(recording.stoppedAtLine == nil)
    #expect(recording.entries.compactMap(\.action).count == 2)
  }

  @Test func aTruncatedRecordingReplaysItsValidPrefix() throws {
    let recording = Recording(data: try fixture("truncated.jsonl"), registry: Self.registry)
    #expect(recording.stoppedAtLine == 3)
    let reason = "\(recording.problems.last?.reason as Any)"
    #expect(reason.contains("invalid JSON"))
    let store = Store(reducer: Self.reducer, state: nil)
    recording.replay(into: store)
    #expect(store.state == Count(value: 3))  // increment, then add(2); line 3 was cut
  }

  @MainActor
  @Test func replayAsATestHelper() async throws {
    let recording = Recording(data: try fixture("truncated.jsonl"), registry: Self.registry)
    await replay(recording, reducer: Self.reducer, expecting: Count(value: 3))
    await withKnownIssue {
      await replay(recording, reducer: Self.reducer, expecting: Count(value: 4))
    }
  }

  @MainActor
  @Test func replayWithAComposedInPlaceReducer() async throws {
    let recording = Recording(data: try fixture("truncated.jsonl"), registry: Self.registry)
    let composed = combineReducers(inPlace(Self.reducer))
    await replay(recording, reducer: composed, initialState: Count(), expecting: Count(value: 3))
    await withKnownIssue {
      await replay(recording, reducer: composed, initialState: Count(), expecting: Count())
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("ended in a different state")
    }
  }

  @MainActor
  @Test func replayStepByStepNamesTheFirstStepThatDiffers() async throws {
    let recording = Recording(data: try fixture("truncated.jsonl"), registry: Self.registry)
    await replay(
      recording, reducer: Self.reducer,
      expectingAfterEach: [Count(value: 1), Count(value: 3)])
    await withKnownIssue {
      await replay(
        recording, reducer: Self.reducer,
        expectingAfterEach: [Count(value: 1), Count(value: 4)])
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("After step 2 (line 2")
    }
  }

  @MainActor
  @Test func replayWithMainActorReducers() async throws {
    let recording = Recording(data: try fixture("truncated.jsonl"), registry: Self.registry)
    await replay(recording, reducer: mainActorCountReducer, expecting: Count(value: 3))
    let composed = combineReducers(scopedReducer(\Count.value, mainActorValueReducer))
    await replay(recording, reducer: composed, initialState: Count(), expecting: Count(value: 3))
    await withKnownIssue {
      await replay(recording, reducer: composed, initialState: Count(), expecting: Count())
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("ended in a different state")
    }
  }

  @MainActor
  @Test func timeTravelMovesTheStoreAndNotifiesSubscribers() {
    let timeTravel = TimeTravel<Count>()
    let store = Store(reducer: timeTravel.wrap(Self.reducer), state: nil)
    let recorder = RecordingSubscriber<Int>()
    store.subscribe(recorder) { $0.select(\.value) }
    store.dispatch(CounterAction.increment)
    store.dispatch(CounterAction.add(10))
    #expect(timeTravel.count == 3)  // init, increment, add
    #expect(timeTravel.jump(store, to: 1))
    #expect(store.state == Count(value: 1))
    #expect(timeTravel.jump(store, to: 2))  // and back to the present
    #expect(store.state == Count(value: 11))
    #expect(recorder.values == [0, 1, 11, 1, 11])
    timeTravel.jump(store, to: 1)
    store.dispatch(CounterAction.add(100))  // continues from 1, drops the later history
    #expect(store.state == Count(value: 101))
    #expect(timeTravel.count == 3)
    #expect(!timeTravel.jump(store, to: 9))
  }

  private func fixture(_ name: String) throws -> Data {
    let url = try #require(
      Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
    return try Data(contentsOf: url)
  }
}

/// Reducers as a target with default main-actor isolation declares them.
@MainActor
private func mainActorCountReducer(action: Action, state: RecordingTests.Count?)
  -> RecordingTests.Count
{
  RecordingTests.reducer(action, state)
}

@MainActor
private func mainActorValueReducer(state: inout Int, action: RecordingTests.CounterAction) {
  switch action {
  case .increment: state += 1
  case .add(let amount): state += amount
  }
}
