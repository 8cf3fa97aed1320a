import Foundation
import Statecraft
import StatecraftInspector
import StatecraftTestSupport
import StatecraftTools
import Testing

/// What `inspect --live` makes of an app's lines: the page's events, whatever the app sends.
@Suite(.bounded(minutes: 1)) struct LiveSessionTests {
  static let header = #"{"format":"statecraft-recording","version":2,"stateType":"S"}"#

  /// A session with one page, and the app connected.
  static func connectedSession() -> (LiveSession, LiveSession.Client) {
    let session = LiveSession()
    let page = LiveSession.Client()
    session.add(page)
    _ = session.appConnected { _ in true }
    _ = page.take(session)
    return (session, page)
  }

  static func receive(_ lines: [String], in session: LiveSession) {
    session.receive(lines: lines.map { Array($0.utf8)[...] })
  }

  /// The page's events of `name`, as JSON.
  static func events(_ name: String, in texts: [String]) throws -> [JSONValue] {
    try texts.filter { $0.hasPrefix("event: \(name)\n") }.map { text in
      let data = try #require(text.split(separator: "\n").first { $0.hasPrefix("data: ") })
      return try JSONValue.parse(Data(data.dropFirst(6).utf8))
    }
  }

  @Test(arguments: [
    #"{"gap":{"from":9223372036854775807,"count":2}}"#,
    #"{"gap":{"from":-9223372036854775808,"count":0}}"#,
  ])
  func aGapWhoseIndicesCannotExistIsAProblemOnThePageNotACrash(line: String) throws {
    let (session, page) = Self.connectedSession()
    Self.receive(
      [Self.header, #"{"index":0,"time":0,"type":"T","payload":null,"state":{"n":1}}"#, line],
      in: session)
    let events = page.take(session)
    let problems = try Self.events("problem", in: events)
    #expect(problems.count == 1)
    #expect("\(problems)".contains("which no recorder writes"))
    // The session goes on: the next action is a step of the page.
    Self.receive([#"{"index":1,"time":0,"type":"T","payload":null,"changes":[]}"#], in: session)
    let steps = try Self.events("steps", in: page.take(session))
    #expect(steps.count == 1)
  }

  /// Issue 38: a live step has no line in a file, a thunk's lifecycle is titled by its name and
  /// phase, and the app's action types are offered by the name the page shows, whole where two
  /// share it.
  @Test func aLiveStepIsTitledWithoutALineAndTheAppsTypesAreOfferedAsShown() throws {
    let (session, page) = Self.connectedSession()
    Self.receive(
      [
        #"{"format":"statecraft-recording","version":2,"stateType":"S","actionTypes":"#
          + #"["A.NoteAction","A.ShelfAction","B.NoteAction"]}"#,
        #"{"index":0,"time":0,"type":"Statecraft.ThunkLifecycle<Swift.Int>","#
          + #""payload":{"name":"books/load","requestID":1,"phase":"fulfilled","value":3},"#
          + #""state":{"n":1}}"#,
      ], in: session)
    let reset = try #require(try Self.events("reset", in: page.take(session)).last)
    guard case .object(let data) = reset, case .array(let actions)? = data["actions"],
      case .array(let first)? = actions.first
    else {
      Issue.record("the reset holds no step: \(reset)")
      return
    }
    #expect(data["titles"] == .array([.string("books/load · fulfilled")]))
    #expect(first[0] == .null, "a live step has no line")
    #expect(first[3] == .string("3"))
    #expect(
      first[5]
        == .object([
          "name": .string("books/load"), "requestID": .integer(1), "phase": .string("fulfilled"),
          "value": .integer(3),
        ]), "a live step carries its action as JSON, for the page's tree and raw view")
    #expect(
      data["actionTypes"]
        == .array([
          .array([.string("A.NoteAction"), .string("A.NoteAction")]),
          .array([.string("ShelfAction"), .string("A.ShelfAction")]),
          .array([.string("B.NoteAction"), .string("B.NoteAction")]),
        ]))
  }

  /// The app's lines for steps `range`: the first sets the state whole, each other one its `n`,
  /// with `padding` bytes of payload.
  static func lines(_ range: ClosedRange<Int>, padding: Int = 0) -> [String] {
    let pad = String(repeating: "x", count: padding)
    return range.map { index in
      index == 0
        ? #"{"index":0,"time":0,"type":"Statecraft.StatecraftInit","payload":null,"state":{"n":0}}"#
        : #"{"index":\#(index),"time":0,"type":"T","payload":"\#(pad)","changes":[[2,["n"],\#(index)]]}"#
    }
  }

  @Test(arguments: [
    (LiveSession.Limits(steps: 2_000, bytes: 1 << 30), 0),
    (LiveSession.Limits(steps: 1_000_000, bytes: 256 << 10), 1_000),
  ])
  func aLongSessionKeepsItsLastStepsWithinTheLimits(limits: LiveSession.Limits, padding: Int)
    throws
  {
    let session = LiveSession(limits: limits)
    let page = LiveSession.Client()
    session.add(page)
    _ = session.appConnected { _ in true }
    Self.receive([Self.header], in: session)
    // A page that never reads: its queue is emptied and marked for a reset when full.
    for first in stride(from: 0, to: 10_000, by: 500) {
      Self.receive(Self.lines(first...(first + 499), padding: padding), in: session)
    }
    let kept = session.kept
    #expect(kept.steps <= limits.steps)
    #expect(kept.bytes <= limits.bytes)
    #expect(kept.firstStep > 0)
    #expect(kept.firstStep + kept.steps == 10_000)
    // A page that connects now gets the steps kept, and the state before the first of them.
    let late = LiveSession.Client()
    session.add(late)
    let reset = try #require(try Self.events("reset", in: late.take(session)).first?.objectValue)
    #expect(reset["firstStep"] == .integer(Int64(kept.firstStep)))
    // Step k is the action of index k - 1, whose state's n is k - 1.
    var state = try #require(reset["initial"])
    #expect(state == .object(["n": .integer(Int64(kept.firstStep - 1))]))
    guard case .array(let patches)? = reset["patches"] else {
      Issue.record("no patches")
      return
    }
    #expect(patches.count == kept.steps)
    for case .array(let changes) in patches {
      for patch in changes { _ = JSONChange(patch: patch).map { state.apply($0) } }
    }
    #expect(state == .object(["n": .integer(9_999)]))
    guard case .array(let checkpoints)? = reset["checkpoints"] else { return }
    for case .array(let parts) in checkpoints {
      #expect((parts.first?.integerValue ?? 0) > kept.firstStep)
    }
    // A state the app sends again is numbered in the whole session, as the page's offset expects.
    Self.receive([#"{"stateAfter":{"index":9998,"state":{"n":9998}}}"#], in: session)
    let sent = try Self.events("state", in: late.take(session))
    #expect(sent.first?.objectValue?["step"] == .integer(9_999))
  }

  /// A late page's first state is the state after the last step no longer kept, even when the
  /// app sent no state for the steps around the cut (it sends one a frame during a burst).
  @Test func aLatePagesFirstStateIsTheTrueStateAtTheCutWhenStatesWereOmitted() throws {
    let session = LiveSession(limits: .init(steps: 2_000, bytes: 1 << 30))
    _ = session.appConnected { _ in true }
    Self.receive([Self.header], in: session)
    // Every step but one in ten arrives without its state, as during a burst; the next state
    // sent sets n outright, so it is right whatever came before.
    let lines = (0..<10_000).map { index -> String in
      if index == 0 { return Self.lines(0...0)[0] }
      return index % 10 == 0
        ? #"{"index":\#(index),"time":0,"type":"T","payload":"","changes":[[2,["n"],\#(index)]]}"#
        : #"{"index":\#(index),"time":0,"type":"T","payload":"","stateOmitted":true}"#
    }
    for first in stride(from: 0, to: 10_000, by: 500) {
      Self.receive(Array(lines[first..<(first + 500)]), in: session)
    }
    let kept = session.kept
    #expect(kept.firstStep > 0)
    let late = LiveSession.Client()
    session.add(late)
    let reset = try #require(try Self.events("reset", in: late.take(session)).first?.objectValue)
    // Step k is the action of index k - 1: the state after step firstStep has n = firstStep - 1.
    #expect(reset["initial"] == .object(["n": .integer(Int64(kept.firstStep - 1))]))
  }

  /// Issue 38.3: the page's Export is a recording `inspect` and `Recording` read, with the
  /// states the page shows: a state the app did not send is marked so, and one a skip made known
  /// (the state before the skipped action) is the state after the step before it.
  @Test func aSessionExportsAsARecordingWithTheStatesThePageShows() throws {
    let (session, _) = Self.connectedSession()
    #expect(LiveSession().recording() == nil, "nothing to export before an app connected")
    Self.receive(
      [
        Self.header,
        #"{"index":0,"time":0,"type":"Statecraft.StatecraftInit","payload":null,"state":{"n":0}}"#,
        #"{"index":1,"time":0.1,"type":"A.Add","payload":{"add":{"_0":1}},"stateOmitted":true}"#,
        #"{"index":2,"time":0.2,"type":"A.Add","payload":{"add":{"_0":2}},"changes":[[2,["n"],3]]}"#,
        #"{"index":3,"time":0.3,"type":"A.Add","payload":{"add":{"_0":4}},"stateOmitted":true}"#,
        #"{"gap":{"from":4,"count":2},"changes":[[2,["n"],9]]}"#,
      ], in: session)
    var recording = Recording(data: Data(try #require(session.recording()).utf8))
    #expect(recording.problems.count == 2, "the init, sent without its value, and the gap")
    #expect(recording.entries.map(\.index) == [0, 1, 2, 3])
    #expect(recording.entries.map(\.payload)[1] == .object(["add": .object(["_0": .integer(1)])]))
    #expect(recording.entries[1].state == .omitted)
    #expect(recording.gaps.count == 1)
    var report = SessionReport(recording: recording)
    #expect(report.state(afterStep: 3)?.state == .object(["n": .integer(3)]))
    #expect(report.state(afterStep: 5)?.state == .object(["n": .integer(9)]))
    // The app skipped action 2: the state before it (after action 1) is now known.
    Self.receive(
      [
        #"{"rewrite":{"from":2,"state":{"n":1},"steps":[{"index":2,"changes":[]},"#
          + #"{"index":3,"changes":[[2,["n"],5]]}]}}"#
      ], in: session)
    recording = Recording(data: Data(try #require(session.recording()).utf8))
    report = SessionReport(recording: recording)
    #expect(report.state(afterStep: 2)?.state == .object(["n": .integer(1)]))
    #expect(report.state(afterStep: 3)?.state == .object(["n": .integer(1)]))
    #expect(report.state(afterStep: 4)?.state == .object(["n": .integer(5)]))
  }

  /// Issue 38.3: after the app commits or reverts, the page's steps start from the base, and
  /// are numbered on.
  @Test func aCommitForgetsTheStepsAndStartsFromTheBase() throws {
    let (session, page) = Self.connectedSession()
    Self.receive([Self.header] + Self.lines(0...3), in: session)
    _ = page.take(session)
    Self.receive([#"{"commit":{"state":{"n":3}}}"#] + Array(Self.lines(4...4)), in: session)
    let reset = try #require(try Self.events("reset", in: page.take(session)).last?.objectValue)
    #expect(reset["initial"] == .object(["n": .integer(3)]))
    #expect(reset["firstStep"] == .integer(4))
    guard case .array(let actions)? = reset["actions"] else {
      Issue.record("no actions: \(reset)")
      return
    }
    #expect(actions.count == 1)
    #expect(session.kept.steps == 1)
  }
}
