import Foundation
import Statecraft
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
    session.appConnected { _ in true }
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
}
