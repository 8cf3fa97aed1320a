import Dispatch
import Foundation
import Statecraft
import StatecraftInspector
import StatecraftPrimitives
import StatecraftTestSupport
import StatecraftTools
import Testing

/// Recordings of format 2: the header, the states as a first snapshot then changes, what the
/// recorder drops when its writer falls behind, and redaction.
@Suite(.catchesHangs) struct RecordingFormatTests {
  struct Note: Codable, Equatable, Sendable {
    var text: String
    var isPinned = false
  }

  struct Notebook: Codable, Equatable, Sendable {
    var notes: [Note] = []
    var token = "secret-token"
    var count = 0
  }

  enum NoteAction: Action, Codable, Equatable {
    case add(String)
    case pin(Int)
    case remove(Int)
    case login(user: String, password: String)
    case increment
  }

  static let reducer: Reducer<Notebook> = { action, state in
    var state = state ?? Notebook()
    switch action as? NoteAction {
    case .add(let text):
      state.notes.append(Note(text: text))
      state.count += 1
    case .pin(let index) where state.notes.indices.contains(index):
      state.notes[index].isPinned.toggle()
    case .remove(let index) where state.notes.indices.contains(index):
      state.notes.remove(at: index)
    case .login(let user, let password):
      state.token = user + ":" + password
    case .increment:
      state.count += 1
    default: break
    }
    return state
  }

  static var registry: ActionRegistry {
    var registry = ActionRegistry()
    registry.register(NoteAction.self)
    return registry
  }

  /// Lines handed to the sink, in order, and a gate that holds the writer until the test opens
  /// it: a writer as slow as the test wants.
  final class Sink: Sendable {
    private let bytes = Locked<[UInt8]>([])
    private let gate = DispatchSemaphore(value: 0)
    private let isGated: Bool

    init(gated: Bool = false) { isGated = gated }

    var write: @Sendable ([UInt8]) throws -> Void {
      { [self] chunk in
        // The header is written at once, on the creating thread: never gated.
        if isGated, !bytes.withLock({ $0.isEmpty }) { gate.wait() }
        bytes.withLock { $0 += chunk }
      }
    }

    func open() {
      for _ in 0..<1_000 { gate.signal() }
    }

    var data: Data { Data(bytes.withLock { $0 }) }
  }

  private func expectedJSON(_ state: Notebook) throws -> JSONValue {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return try JSONValue.parse(encoder.encode(state))
  }

  /// A development check of debug builds (issue 31): an action the registry cannot encode is
  /// reported once per type, with what to do.
  @MainActor
  @Test func aRecorderReportsTheActionTypesItCannotEncodeOnce() {
    struct Unregistered: Action, Codable {}
    struct NotCodable: Action {}
    let warnings = Warnings()
    let recorder = ActionRecorder<Notebook>(sink: { _ in }, registry: Self.registry)
    let store = Store(reducer: Self.reducer, state: nil, middleware: [recorder.middleware()])
    StatecraftDiagnostics.$warningHandler.withValue(
      { warnings.append($0) },
      operation: {
        store.dispatch(NoteAction.increment)
        store.dispatch(Unregistered())
        store.dispatch(Unregistered())
        store.dispatch(NotCodable())
      })
    let reported = warnings.all.filter { $0.contains("by name only") }
    #expect(reported.count == 2)
    #expect(reported.first?.contains("writes Unregistered by name only") == true)
    #expect(reported.first?.contains("Register it: registry.register(Unregistered.self)") == true)
    #expect(reported.last?.contains("Make NotCodable Codable, then register it") == true)
    recorder.close()
  }

  @Test func aRecordingHoldsEveryStateAndAToolReadsItWithoutTheAppsCode() throws {
    let sink = Sink()
    let recorder = ActionRecorder<Notebook>(
      sink: sink.write, registry: Self.registry,
      limits: RecordingLimits(maximumPendingStates: 1_000, snapshotInterval: 7))
    let store = Store(reducer: Self.reducer, state: nil, middleware: [recorder.middleware()])
    var states = [store.state]
    var random = SeededRandom(seed: 30)
    for step in 0..<200 {
      switch random.next(upTo: 3) {
      case 0: store.dispatch(NoteAction.add("note \(step) <b>&</b>"))
      case 1: store.dispatch(NoteAction.pin(random.next(upTo: 10)))
      default: store.dispatch(NoteAction.remove(random.next(upTo: 10)))
      }
      states.append(store.state)
    }
    recorder.close()

    let recording = Recording(data: sink.data)
    #expect(recording.header?.version == 2)
    #expect(recording.header?.stateType == String(reflecting: Notebook.self))
    #expect(recording.hasStates)
    #expect(recording.entries.count == 201)
    // A snapshot first, then every 7th state.
    let snapshots = recording.entries.indices.filter {
      if case .snapshot = recording.entries[$0].state { true } else { false }
    }
    #expect(snapshots == Array(stride(from: 0, to: 201, by: 7)))
    let report = SessionReport(recording: recording)
    for step in [0, 1, 2, 7, 8, 100, 199, 201] {
      let state = try #require(report.state(afterStep: step))
      #expect(state.step == step)
      #expect(state.state == (try expectedJSON(states[max(0, step - 1)])), "step \(step)")
    }
    #expect(report.problems.isEmpty)
  }

  // T1 (Docs/ConcurrencyModel.md).
  @Test func aSlowWriterDropsStatesAndActionsButNeverBlocksOrGrows() throws {
    let sink = Sink(gated: true)
    let limits = RecordingLimits(maximumPendingActions: 1_000, maximumPendingStates: 16)
    let recorder = ActionRecorder<Notebook>(
      sink: sink.write, registry: Self.registry, limits: limits)
    let store = Store(reducer: Self.reducer, state: nil, middleware: [recorder.middleware()])
    // The writer takes the first batch and blocks in the sink: the burst meets a full buffer.
    // (Increments: an action that grows an array would copy it at each dispatch while the
    // recorder holds the state before, which RecordingLimits documents.)
    for _ in 0..<100_000 { store.dispatch(NoteAction.increment) }
    let during = recorder.statistics
    sink.open()
    recorder.close()
    let after = recorder.statistics

    #expect(during.actions == 100_001)
    #expect(during.mostPendingActions <= 1_000)
    #expect(during.mostPendingStates <= 16)
    #expect(after.writtenActions + after.droppedActions == 100_001)
    #expect(after.droppedActions > 90_000)
    #expect(after.droppedStates > 0)

    let recording = Recording(data: sink.data)
    #expect(recording.stoppedAtLine == nil)
    // Every action is either written or counted in a gap line, by index.
    var indices = Set(recording.entries.map(\.index))
    for gap in recording.gaps { indices.formUnion(gap.from..<(gap.from + gap.count)) }
    #expect(indices == Set(0..<100_001))
    #expect(recording.gaps.reduce(0) { $0 + $1.count } == after.droppedActions)
    #expect(recording.droppedStates == after.droppedStates)
    #expect(
      recording.problems.contains {
        if case .actionsDropped = $0.reason { true } else { false }
      })
    // The recording catches up to the latest state all the same.
    let report = SessionReport(recording: recording)
    #expect(report.isIncomplete)
    let last = try #require(report.state(afterStep: report.actionCount))
    #expect(last.state == (try expectedJSON(store.state)))
  }

  @Test func aStateDroppedWhileTheWriterIsBehindIsMarkedAndTheNextOneIsExact() throws {
    let sink = Sink(gated: true)
    let recorder = ActionRecorder<Notebook>(
      sink: sink.write, registry: Self.registry,
      limits: RecordingLimits(maximumPendingActions: 100, maximumPendingStates: 2))
    let store = Store(reducer: Self.reducer, state: nil, middleware: [recorder.middleware()])
    for index in 0..<10 { store.dispatch(NoteAction.add("\(index)")) }
    sink.open()
    recorder.close()
    let recording = Recording(data: sink.data)
    #expect(recording.gaps.isEmpty)
    #expect(recording.droppedStates > 0)
    let dropped = recording.entries.filter { $0.state == .dropped }
    #expect(dropped.count == recording.droppedStates)
    // Coalescing keeps the newest state: the last action has its state.
    #expect(recording.entries.last?.state != .dropped)
    let report = SessionReport(recording: recording)
    let last = try #require(report.state(afterStep: 11))
    #expect(last.state == (try expectedJSON(store.state)))
  }

  @Test func aStepWithoutItsStateAtACheckpointSaysWhichStateItShows() throws {
    // 1,001 actions of a counter whose state is its action's offset; the state after the
    // 1,000th, where the report puts its first checkpoint, was dropped.
    var lines = [
      #"{"format":"statecraft-recording","snapshotInterval":1000,"stateType":"Int","version":2}"#
    ]
    for offset in 0...1_000 {
      let state =
        offset == 0
        ? #""state":0"#
        : offset == 999 ? #""stateDropped":true"# : #""changes":[[2,[],\#(offset)]]"#
      lines.append(#"{"index":\#(offset),"payload":null,\#(state),"time":0,"type":"T"}"#)
    }
    let report = SessionReport(recording: Recording(data: Data(lines.joined(separator: "\n").utf8)))
    let atCheckpoint = try #require(report.state(afterStep: 1_000))
    #expect(atCheckpoint.step == 999 && atCheckpoint.state == .integer(998))
    let after = try #require(report.state(afterStep: 1_001))
    #expect(after.step == 1_001 && after.state == .integer(1_000))
  }

  @Test func redactedPathsAreNeverWrittenInStatesOrActions() throws {
    let sink = Sink()
    let recorder = ActionRecorder<Notebook>(
      sink: sink.write, registry: Self.registry,
      redacting: { $0 == "token" || $0 == "action.login.password" })
    let store = Store(reducer: Self.reducer, state: nil, middleware: [recorder.middleware()])
    store.dispatch(NoteAction.login(user: "ana", password: "hunter2"))
    store.dispatch(NoteAction.add("visible"))
    recorder.close()
    let text = String(decoding: sink.data, as: UTF8.self)
    #expect(!text.contains("hunter2"))
    #expect(!text.contains("secret-token"))
    #expect(text.contains("\"<redacted>\""))
    #expect(text.contains("\"ana\""))
    #expect(text.contains("visible"))
    let recording = Recording(data: sink.data)
    #expect(recording.header?.isRedacted == true)
    #expect(
      recording.entries[1].payload
        == .object(["login": .object(["user": .string("ana"), "password": .redacted])]))
  }

  @Test func aRecordingOfFormat1WithoutAHeaderStillLoads() throws {
    let lines = """
      {"index":0,"time":0.001,"type":"Statecraft.StatecraftInit"}
      {"index":1,"payload":{"add":{"_0":"old"}},"time":0.002,"type":"\(String(reflecting: NoteAction.self))"}

      """
    let recording = Recording(data: Data(lines.utf8), registry: Self.registry)
    #expect(recording.header == nil)
    #expect(!recording.hasStates)
    #expect(recording.entries.count == 2)
    #expect(recording.entries[1].action as? NoteAction == .add("old"))
    #expect(recording.state(after: 2, reducer: Self.reducer).notes == [Note(text: "old")])
  }

  @Test func aRecordingOfANewerVersionStopsWithASentence() {
    let recording = Recording(
      data: Data(#"{"format":"statecraft-recording","version":3,"stateType":null}"#.utf8))
    #expect(recording.stoppedAtLine == 1)
    #expect("\(recording.problems)".contains("newer than this reader's 2; update Statecraft"))
  }

  @Test func deepNestingStopsReadingWithAMessageInsteadOfExhaustingTheStack() {
    let depth = 100_000
    let line =
      #"{"index":0,"time":0,"type":"T","payload":"# + String(repeating: "[", count: depth)
      + String(repeating: "]", count: depth) + "}"
    let recording = Recording(data: Data(line.utf8))
    #expect(recording.entries.isEmpty)
    #expect(recording.stoppedAtLine == 1)
    #expect("\(recording.problems)".contains("nested deeper than 512 levels"))
  }

  @Test(arguments: [
    #"{"gap":{"from":9223372036854775807,"count":2}}"#,
    #"{"gap":{"from":-9223372036854775808,"count":0}}"#,
    #"{"gap":{"from":-1,"count":1}}"#, #"{"gap":{"from":0,"count":-5}}"#,
  ])
  func aGapWhoseIndicesCannotExistStopsReadingThereInsteadOfTrapping(line: String) {
    let header = #"{"format":"statecraft-recording","version":2,"stateType":"S"}"#
    let action = #"{"index":0,"time":0,"type":"T","payload":null,"state":{"n":1}}"#
    let recording = Recording(
      data: Data([header, action, line, action].joined(separator: "\n").utf8))
    #expect(recording.gaps.isEmpty)
    #expect(recording.entries.count == 1)
    #expect(recording.stoppedAtLine == 3)
    #expect("\(recording.problems)".contains("which no recorder writes"))
    // What `inspect` builds from it in each of its modes.
    let report = SessionReport(recording: recording)
    #expect(report.state(afterStep: 1)?.state == .object(["n": .integer(1)]))
    #expect(report.html(title: "gap").contains("<html"))
  }

  @Test func aGapAtTheLastIndexThereIsIsRead() {
    let line = #"{"gap":{"from":9223372036854775806,"count":2}}"#
    let recording = Recording(data: Data(line.utf8))
    #expect(recording.gaps.map(\.count) == [2])
    #expect(
      "\(recording.problems)".contains(
        "2 actions (index 9223372036854775806 to 9223372036854775807) were not recorded"))
    #expect(SessionReport(recording: recording).actionCount == 1)
  }

  @Test func theParserReadsWhatJSONEncoderWrites() throws {
    var random = SeededRandom(seed: 7)
    for _ in 0..<200 {
      var notebook = Notebook()
      for index in 0..<random.next(upTo: 8) {
        notebook.notes.append(
          Note(text: "n\(index) \u{2028} \"q\" \\ é 🙂 \u{1}", isPinned: random.next(upTo: 2) == 0))
      }
      notebook.count = random.next(upTo: 1_000_000) - 500_000
      let data = try JSONEncoder().encode(notebook)
      let parsed = try JSONValue.parse(data)
      #expect(parsed == (try JSONDecoder().decode(JSONValue.self, from: data)))
      #expect(
        try JSONDecoder().decode(Notebook.self, from: Data(parsed.jsonText().utf8)) == notebook)
    }
    #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Data([0x22, 0xFF, 0x22])) }
    #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Data("[1,]".utf8)) }
    #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Data(#""\ud800""#.utf8)) }
    #expect(try JSONValue.parse(Data(#""\ud83d\ude42""#.utf8)) == .string("🙂"))
    #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Data("1e400".utf8)) }
  }
}

/// Warnings collected from any thread.
final class Warnings: Sendable {
  private let storage = Locked<[String]>([])

  func append(_ warning: String) { storage.withLock { $0.append(warning) } }
  var all: [String] { storage.withLock { $0 } }
}
