import Foundation
import Statecraft
import StatecraftInspector
import StatecraftTestSupport
import StatecraftTesting
import StatecraftTools
import Testing

/// The library's own actions in recordings (issue 38): a thunk's lifecycle is recorded by its
/// name, run and phase with its value or error, and replays; `StatecraftInit` records without a
/// warning.
@Suite(.catchesHangs) struct ThunkRecordingTests {
  struct Shelf: Codable, Equatable, Sendable {
    var books: [String] = []
    var isLoading = false
    var error: String?
  }

  enum ShelfError: Error {
    case offline
  }

  /// A value that is not `Codable`.
  struct Opaque: Sendable {
    let count: Int
  }

  static let loadBooks = AsyncThunk<Shelf, [String]>("books/load") { _ in ["Dune"] }
  static let countBooks = AsyncThunk<Shelf, Opaque>("books/count") { _ in Opaque(count: 1) }

  static let reducer: Reducer<Shelf> = { action, state in
    var state = state ?? Shelf()
    if let event = loadBooks.lifecycle(of: action) {
      state.isLoading = event.isPending
      if let books = event.value { state.books = books }
      if let error = event.error { state.error = "\(error)" }
    }
    return state
  }

  static var registry: ActionRegistry {
    var registry = ActionRegistry()
    registry.register(ThunkLifecycle<[String]>.self)
    return registry
  }

  /// Every phase, as a store dispatches them, through a recorder and back.
  static func recordedSession() throws -> (Recording, Store<Shelf>) {
    let sink = RecordingFormatTests.Sink()
    let recorder = ActionRecorder<Shelf>(sink: sink.write, registry: registry)
    let store = Store(reducer: reducer, state: nil, middleware: [recorder.middleware()])
    store.dispatch(ThunkLifecycle<[String]>(name: "books/load", requestID: 1, phase: .pending))
    store.dispatch(ThunkLifecycle<[String]>(name: "books/load", requestID: 1, phase: .cancelled))
    store.dispatch(ThunkLifecycle<[String]>(name: "books/load", requestID: 2, phase: .pending))
    store.dispatch(
      ThunkLifecycle<[String]>(
        name: "books/load", requestID: 2, phase: .rejected(ShelfError.offline)))
    store.dispatch(
      ThunkLifecycle<[String]>(name: "books/load", requestID: 3, phase: .fulfilled(["Dune"])))
    recorder.close()
    return (Recording(data: sink.data, registry: registry), store)
  }

  @Test func aLifecycleIsRecordedWithItsNameRunPhaseAndValueOrError() throws {
    let (recording, _) = try Self.recordedSession()
    #expect(recording.problems.isEmpty)
    let payloads = recording.entries.dropFirst().map(\.payload)
    #expect(
      payloads[3]
        == .object([
          "name": .string("books/load"), "requestID": .integer(2), "phase": .string("rejected"),
          "error": .object([
            "type": .string(String(reflecting: ShelfError.self)), "description": .string("offline"),
            "debugDescription": .string(String(reflecting: ShelfError.offline)),
          ]),
        ]))
    #expect(
      payloads[4]
        == .object([
          "name": .string("books/load"), "requestID": .integer(3), "phase": .string("fulfilled"),
          "value": .array([.string("Dune")]),
        ]))
    let phases = recording.entries.compactMap { $0.action as? ThunkLifecycle<[String]> }
      .map(\.phase.name)
    #expect(phases == ["pending", "cancelled", "pending", "rejected", "fulfilled"])
  }

  @Test func aRejectedLifecycleReadsBackWithTheErrorsTextAndEqualsTheOriginal() throws {
    let (recording, _) = try Self.recordedSession()
    let rejected = try #require(recording.entries[4].action as? ThunkLifecycle<[String]>)
    let error = try #require(rejected.error as? RecordedThunkError)
    #expect("\(error)" == "offline")
    #expect(error.typeName == String(reflecting: ShelfError.self))
    #expect(
      rejected
        == ThunkLifecycle(name: "books/load", requestID: 2, phase: .rejected(ShelfError.offline)))
  }

  @Test func aRecordedLifecycleReplaysToTheSameState() throws {
    let (recording, store) = try Self.recordedSession()
    let fresh = Store(reducer: Self.reducer, state: nil)
    #expect(recording.replay(into: fresh) == 5)
    #expect(fresh.state == store.state)
    #expect(fresh.state == Shelf(books: ["Dune"], isLoading: false, error: "offline"))
  }

  /// What a test `inspect --swift-test` generates does: the replay checks every step's changes.
  @MainActor
  @Test func aGeneratedTestOfALifecycleSessionPassesAndFailsWithoutTheLifecycle() async throws {
    let (recording, _) = try Self.recordedSession()
    let report = SessionReport(recording: recording)
    #expect(!report.isIncomplete)
    let initial = try #require(report.state(afterStep: 0)?.state)
    let expected = StateChangeLog(initial: initial, steps: report.steps.map { $0.changes ?? [] })
      .textLines.joined(separator: "\n")
    #expect(report.steps.filter { $0.changes?.isEmpty == false }.count == 5)
    await replay(recording, reducer: Self.reducer, expectingChanges: expected)
    let ignoringThunks: Reducer<Shelf> = { _, state in state ?? Shelf() }
    await withKnownIssue {
      await replay(recording, reducer: ignoringThunks, expectingChanges: expected)
    }
  }

  @Test func theEncodingOfARegisteredLifecycleIsTheOneRecordersWrite() throws {
    let lifecycle = ThunkLifecycle<[String]>(
      name: "books/load", requestID: 7, phase: .rejected(ShelfError.offline))
    let encoded = try JSONValue.parse(JSONEncoder().encode(lifecycle))
    let decoded = try JSONDecoder().decode(
      ThunkLifecycle<[String]>.self, from: Data(encoded.jsonText().utf8))
    #expect(decoded == lifecycle)
    #expect(
      throws: DecodingError.self,
      performing: {
        try JSONDecoder().decode(
          ThunkLifecycle<Int>.self,
          from: Data(#"{"name":"n","requestID":1,"phase":"finished"}"#.utf8))
      })
  }

  @Test func aLifecycleWhoseValueIsNotCodableIsRecordedByNameAndPhaseAndMarkedNotReplayable() {
    let sink = RecordingFormatTests.Sink()
    let recorder = ActionRecorder<Shelf>(sink: sink.write, registry: Self.registry)
    let store = Store(reducer: Self.reducer, state: nil, middleware: [recorder.middleware()])
    store.dispatch(ThunkLifecycle<Opaque>(name: "books/count", requestID: 4, phase: .pending))
    store.dispatch(
      ThunkLifecycle<Opaque>(name: "books/count", requestID: 4, phase: .fulfilled(Opaque(count: 1)))
    )
    recorder.close()
    let recording = Recording(data: sink.data, registry: Self.registry)
    let fulfilled = recording.entries[2]
    #expect(fulfilled.action == nil)
    guard case .object(let payload)? = fulfilled.payload else {
      Issue.record("the lifecycle was recorded without a payload")
      return
    }
    #expect(payload["phase"] == .string("fulfilled"))
    #expect(payload["value"] == nil)
    #expect(
      payload["valueNotRecorded"]
        == .string("\(String(reflecting: Opaque.self)) is not Codable"))
    #expect(recording.problems.map(\.line) == [3, 4])
    #expect(recording.problems.last?.description.contains("which is not Codable") == true)
    let report = SessionReport(recording: recording)
    #expect(report.steps[2].text.hasPrefix("books/count · fulfilled (value not recorded:"))
  }

  @MainActor
  @Test func theLibrarysOwnActionsRecordWithoutAWarning() {
    let warnings = Warnings()
    StatecraftDiagnostics.$warningHandler.withValue(
      { warnings.append($0) },
      operation: {
        let recorder = ActionRecorder<Shelf>(sink: { _ in }, registry: Self.registry)
        let store = Store(reducer: Self.reducer, state: nil, middleware: [recorder.middleware()])
        store.dispatch(
          ThunkLifecycle<[String]>(name: "books/load", requestID: 1, phase: .pending))
        recorder.close()
      })
    #expect(warnings.all.isEmpty, "\(warnings.all)")
  }

  @MainActor
  @Test func anUnregisteredLifecycleIsReportedWithTheRegistrationThatReplaysIt() {
    let warnings = Warnings()
    StatecraftDiagnostics.$warningHandler.withValue(
      { warnings.append($0) },
      operation: {
        let recorder = ActionRecorder<Shelf>(sink: { _ in }, registry: ActionRegistry())
        let store = Store(reducer: Self.reducer, state: nil, middleware: [recorder.middleware()])
        store.dispatch(ThunkLifecycle<Int>(name: "n", requestID: 1, phase: .pending))
        store.dispatch(ThunkLifecycle<Opaque>(name: "m", requestID: 2, phase: .pending))
        recorder.close()
      })
    #expect(warnings.all.count == 2)
    #expect(
      warnings.all.first?.contains("Register it: registry.register(ThunkLifecycle<Int>.self)")
        == true)
    #expect(warnings.all.last?.contains("Make Opaque Codable, then register it") == true)
  }
}
