import Foundation
import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

@testable import StatecraftInspector
@testable import StatecraftTools

@Suite(.catchesHangs) struct SessionReportTests {
  private func json(_ text: String) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
  }

  @Test func changesNameWhatWasAddedRemovedAndChanged() throws {
    let before = try json(#"{"a": 1, "b": [1, 2, 3], "c": {"d": true}, "gone": "x"}"#)
    let after = try json(#"{"a": 2, "b": [1, 5], "c": {"d": true, "e": null}, "new": [1]}"#)
    let changes = JSONChange.between(before, after)
    #expect(
      changes == [
        JSONChange(path: [.key("a")], kind: .changed, value: .integer(2)),
        JSONChange(path: [.key("b"), .index(1)], kind: .changed, value: .integer(5)),
        JSONChange(path: [.key("b"), .index(2)], kind: .removed, value: nil),
        JSONChange(path: [.key("c"), .key("e")], kind: .added, value: .null),
        JSONChange(path: [.key("gone")], kind: .removed, value: nil),
        JSONChange(path: [.key("new")], kind: .added, value: .array([.integer(1)])),
      ])
    #expect(JSONChange.between(after, after).isEmpty)
  }

  @Test func anArrayThatShrinksLosesItsLastElementsFirst() throws {
    let changes = JSONChange.between(try json("[1, 2, 3, 4]"), try json("[1]"))
    #expect(changes.map(\.path) == [[.index(3)], [.index(2)], [.index(1)]])
  }

  struct Notes: Codable, Equatable, Sendable {
    var items: [String] = []
  }

  struct AddNote: Action, Codable, Equatable {
    let text: String
  }

  static let reducer: Reducer<Notes> = { action, state in
    var state = state ?? Notes()
    if let action = action as? AddNote { state.items.append(action.text) }
    return state
  }

  private func report(_ texts: [String]) throws -> SessionReport {
    var registry = ActionRegistry()
    registry.register(AddNote.self)
    var lines = ""
    for (index, text) in texts.enumerated() {
      let payload = String(decoding: try JSONEncoder().encode(AddNote(text: text)), as: UTF8.self)
      let type = ActionRegistry.name(of: AddNote.self)
      lines += #"{"index":\#(index),"payload":\#(payload),"time":0.1,"type":"\#(type)"}"#
      lines += "\n"
    }
    let recording = Recording(data: Data(lines.utf8), registry: registry)
    return try SessionReport(recording: recording, reducer: Self.reducer)
  }

  @Test func thePageNeedsNothingFromTheNetwork() throws {
    let html = try report(["first"]).html(title: "notes")
    for outside in ["http:", "https:", "<link", " src=", "@import", "url("] {
      #expect(!html.contains(outside), "the page refers to \(outside)")
    }
  }

  @Test func aStateThatHoldsMarkupCannotBreakOutOfTheData() throws {
    let html = try report(["</script><script>alert(1)</script>"]).html(title: "<b>notes</b>")
    #expect(html.components(separatedBy: "</script>").count == 3, "only the page's own two")
    #expect(html.contains("<title>&lt;b&gt;notes&lt;/b&gt; · Statecraft session</title>"))
  }

  /// Issue 38.3: the page shows each action's values as a tree and as raw JSON, from the
  /// action as the recording holds it, markup included, and never as an element of the page.
  @Test func thePageHoldsEachActionAsTheRecordingHoldsIt() throws {
    let markup = "</script><img src=x onerror=alert(1)>"
    let report = try report(["milk", markup])
    #expect(
      report.steps.map(\.payload) == [
        .object(["text": .string("milk")]), .object(["text": .string(markup)]),
      ])
    let data = try JSONValue.parse(Data(report.pageData().utf8))
    guard case .object(let page) = data, case .array(let actions)? = page["actions"],
      case .array(let second) = actions[1]
    else {
      Issue.record("the page's data holds no actions: \(data)")
      return
    }
    #expect(second[5] == .object(["text": .string(markup)]))
    let html = report.html(title: "notes")
    #expect(html.contains(#"<pre id="action-raw"></pre>"#) && html.contains("copy-state"))
    #expect(!html.contains("<img"), "the markup is not in the page as written")
  }

  /// Issue 38.3: a page imports a recording through the checks of any recording; a file that
  /// is none, or is too large, is refused with what to do instead.
  @Test func anImportedFileIsARecordingOrARefusalThatSaysWhy() throws {
    let line = #"{"index":0,"payload":{"text":"a"},"state":{"items":["a"]},"time":0.1,"type":"T"}"#
    let data = try SessionReport.pageData(importing: Array((line + "\n").utf8))
    guard case .object(let page) = try JSONValue.parse(Data(data.utf8)),
      case .array(let actions)? = page["actions"]
    else {
      Issue.record("the import's data is not the page's: \(data)")
      return
    }
    #expect(actions.count == 1)
    #expect(throws: SessionReport.ImportError.self) {
      try SessionReport.pageData(importing: Array("\u{0}\u{FF} not json\n".utf8))
    }
    #expect(throws: SessionReport.ImportError.self) { try SessionReport.pageData(importing: []) }
    do {
      _ = try SessionReport.pageData(
        importing: [UInt8](repeating: 10, count: SessionReport.maximumImportBytes + 1))
      Issue.record("a file over the limit was imported")
    } catch {
      #expect(error.description.contains("inspect FILE --html"))
    }
  }

  /// Issue 38.3: a live session's state not sent during a burst is not known; the replay
  /// checks it with the next state sent, whose changes are relative to the last one known.
  @Test func aStateNotSentIsCheckedWithTheNextStateSent() async throws {
    var registry = ActionRegistry()
    registry.register(AddNote.self)
    let type = ActionRegistry.name(of: AddNote.self)
    let initType = String(reflecting: StatecraftInit.self)
    let lines = [
      #"{"format":"statecraft-recording","version":2,"stateType":"Notes"}"#,
      #"{"index":0,"payload":{},"state":{"items":[]},"time":0,"type":"\#(initType)"}"#,
      #"{"index":1,"payload":{"text":"a"},"stateOmitted":true,"time":0.1,"type":"\#(type)"}"#,
      #"{"changes":[[0,["items",0],"a"],[0,["items",1],"b"]],"index":2,"payload":{"text":"b"},"#
        + #""time":0.2,"type":"\#(type)"}"#,
    ]
    let bytes = Array(lines.joined(separator: "\n").utf8)
    let source = try SessionReport.swiftTest(
      importing: bytes, named: "live",
      names: .init(imports: ["App"], reducer: "appReducer", registry: "appActions"))
    #expect(source.contains("\nnull,\n"), "the step not sent is null in the test's changes")
    let report = SessionReport(recording: Recording(data: Data(bytes)))
    let log = StateChangeLog(
      initial: .object(["items": .array([])]), steps: report.steps.map(\.changes))
    #expect(try StateChangeLog(text: log.textLines.joined(separator: "\n")) == log)
    await replay(
      Recording(data: Data(bytes), registry: registry), reducer: Self.reducer,
      expectingChanges: log.textLines.joined(separator: "\n"))
  }

  /// A store created with a state records it on its first line; the generated test starts
  /// from it, whatever the reducer's own initial state is.
  static let seededSession: [String] = {
    let type = ActionRegistry.name(of: AddNote.self)
    return [
      #"{"format":"statecraft-recording","version":2,"stateType":"Notes"}"#,
      #"{"changes":[[0,["items",1],"a"]],"index":0,"initial":{"items":["seed"]},"#
        + #""payload":{"text":"a"},"time":0.1,"type":"\#(type)"}"#,
      #"{"changes":[[0,["items",2],"b"]],"index":1,"payload":{"text":"b"},"time":0.2,"#
        + #""type":"\#(type)"}"#,
    ]
  }()

  @Test func aSessionOfAStoreCreatedWithAStateGivesATestThatStartsFromIt() async throws {
    let bytes = Array(Self.seededSession.joined(separator: "\n").utf8)
    _ = try SessionReport.swiftTest(
      importing: bytes, named: "seeded",
      names: .init(imports: ["App"], reducer: "appReducer", registry: "appActions"))
    var registry = ActionRegistry()
    registry.register(AddNote.self)
    let report = SessionReport(recording: Recording(data: Data(bytes)))
    let log = StateChangeLog(
      initial: .object(["items": .array([.string("seed")])]), steps: report.steps.map(\.changes))
    await replay(
      Recording(data: Data(bytes), registry: registry), reducer: Self.reducer,
      expectingChanges: log.textLines.joined(separator: "\n"))
  }

  struct EncodableNotes: Encodable, Sendable {
    var items: [String] = []
  }

  @Test func aSeededSessionOfAStateThatCannotBeDecodedFailsSayingSo() async throws {
    let bytes = Array(Self.seededSession.joined(separator: "\n").utf8)
    var registry = ActionRegistry()
    registry.register(AddNote.self)
    let reducer: Reducer<EncodableNotes> = { action, state in
      var state = state ?? EncodableNotes()
      if let add = action as? AddNote { state.items.append(add.text) }
      return state
    }
    let report = SessionReport(recording: Recording(data: Data(bytes)))
    let log = StateChangeLog(
      initial: .object(["items": .array([.string("seed")])]), steps: report.steps.map(\.changes))
    await withKnownIssue {
      await replay(
        Recording(data: Data(bytes), registry: registry), reducer: reducer,
        expectingChanges: log.textLines.joined(separator: "\n"))
    } matching: { issue in
      "\(issue)".contains("cannot be decoded") && "\(issue)".contains("Decodable")
    }
  }

  @Test func aStepWhoseActionIsNotRegisteredFailsNamingTheRegistrationToAdd() async throws {
    let bytes = Array(Self.seededSession.joined(separator: "\n").utf8)
    let report = SessionReport(recording: Recording(data: Data(bytes)))
    let log = StateChangeLog(
      initial: .object(["items": .array([.string("seed")])]), steps: report.steps.map(\.changes))
    let name = ActionRegistry.name(of: AddNote.self)
    await withKnownIssue {
      await replay(
        Recording(data: Data(bytes), registry: ActionRegistry()), reducer: Self.reducer,
        expectingChanges: log.textLines.joined(separator: "\n"))
    } matching: { issue in
      "\(issue)".contains("was not replayed") && "\(issue)".contains("register(\(name).self)")
    }
  }

  /// Issue 38.3: the live page's Generate test says why it cannot write a test.
  @Test(arguments: [
    (#"{"format":"statecraft-recording","version":2,"stateType":null}"#, "no states"),
    (#"{"gap":{"from":0,"count":2}}"#, "lost states or actions"),
  ])
  func aTestThatCannotCheckEveryStepIsRefusedWithTheReason(line: String, reason: String) {
    let header = #"{"format":"statecraft-recording","version":2,"stateType":"S"}"#
    let text =
      line.contains("format")
      ? line + "\n" + #"{"index":0,"payload":null,"time":0,"type":"T"}"# : header + "\n" + line
    #expect {
      try SessionReport.swiftTest(
        importing: Array((text + "\n").utf8), named: "t",
        names: .init(imports: ["App"], reducer: "r", registry: "a"))
    } throws: { error in
      "\(error)".contains(reason)
    }
    #expect(throws: SessionReport.ImportError.self) {
      try SessionReport.swiftTest(
        importing: [], named: "t",
        names: .init(imports: ["App; exit(1)"], reducer: "r", registry: "a"))
    }
  }

  @Test func aGeneratedTestHoldsTheChangesOfEachStep() throws {
    let test = try report(["a", "b"]).swiftTest(
      named: "notes session",
      names: .init(imports: ["Notes"], reducer: "notesReducer", registry: "notesActions"))
    #expect(test.contains("@Test func notes_session() async throws {"))
    #expect(test.contains(#"[[0,["items",0],"a"]],"# + "\n" + #"[[0,["items",1],"b"]]"#))
    #expect(test.contains("import Notes\n"))
  }

  @Test func aGeneratedTestGrowsWithTheChangesNotWithStepsTimesState() throws {
    let small = try report((0..<100).map { "note \($0)" }).swiftTest(
      named: "notes", names: .init(imports: [], reducer: "r", registry: "n"))
    let large = try report((0..<1_000).map { "note \($0)" }).swiftTest(
      named: "notes", names: .init(imports: [], reducer: "r", registry: "n"))
    // Ten times the steps, each adding one note: about ten times the text, not a hundred.
    #expect(large.utf8.count < 12 * small.utf8.count)
  }

  @Test func aStringLiteralIsPrintableASCIIAndReadsBackTheSameText() throws {
    let lines = [
      "plain", ##"quotes """# and "" and \(x) \ end\"##, "DEL \u{7F} CR \r tab \t",
      "\u{2028}\u{2029}\u{202E} café 🙂", "", "  indented",
    ]
    let literal = SessionReport.stringLiteral(lines: lines)
    #expect(literal.unicodeScalars.allSatisfy { $0 == "\n" || (" "..."~").contains($0) })
    #expect(!literal.dropFirst(3).dropLast(3).contains(#"""""#))
    #expect(try Self.evaluate(literal) == lines.joined(separator: "\n"))
  }

  /// Reads a multi-line string literal the way the compiler does, for the escapes it holds.
  private static func evaluate(_ literal: String) throws -> String {
    var body = literal.dropFirst(4).dropLast(4)  // the delimiters and their newlines
    var result = ""
    while let character = body.popFirst() {
      guard character == "\\" else {
        result.append(character)
        continue
      }
      switch body.popFirst() {
      case "\\": result.append("\\")
      case "\"": result.append("\"")
      case "u":
        guard body.popFirst() == "{", let end = body.firstIndex(of: "}"),
          let value = UInt32(body[..<end], radix: 16), let scalar = Unicode.Scalar(value)
        else { throw CocoaError(.coderInvalidValue) }
        result.unicodeScalars.append(scalar)
        body = body[body.index(after: end)...]
      default: throw CocoaError(.coderInvalidValue)
      }
    }
    return result
  }

  @Test func checkpointsOfALargeStateStayWithinTheirBudget() {
    // 100,000 steps of a 1 MB state: a checkpoint every 1,000 steps would keep 100 MB.
    let interval = SessionReport.checkpointInterval(stateBytes: 1 << 20, steps: 100_000)
    #expect(100_000 / interval * (1 << 20) <= SessionReport.checkpointBudget)
    #expect(SessionReport.checkpointInterval(stateBytes: 20, steps: 100_000) == 1_000)
  }

}
