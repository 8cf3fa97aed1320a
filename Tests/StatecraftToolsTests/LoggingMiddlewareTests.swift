import Foundation
import Statecraft
import StatecraftTestSupport
import StatecraftTools
import Testing

@Suite(.catchesHangs) struct LoggingMiddlewareTests {
  struct Session: Equatable, Sendable {
    var user = "guest"
    var token = "none"
  }

  struct LoggedState: Equatable, Sendable {
    var count = 0
    var films: [String] = []
    var session = Session()
  }

  enum LoggedAction: Action {
    case increment
    case addFilm(String)
    case login(String, token: String)
    case idle
  }

  static let reducer: InPlaceReducer<LoggedState> = { state, action in
    switch action as? LoggedAction {
    case .increment: state.count += 1
    case .addFilm(let title): state.films.append(title)
    case .login(let user, let token):
      state.session = Session(user: user, token: token)
    case .idle, nil: break
    }
  }

  private func logged(_ actions: [LoggedAction]) -> [String] {
    let lines = LockedLines()
    let store = Store(
      reducer: Self.reducer, state: LoggedState(),
      middleware: [
        createLoggingMiddleware(
          to: .closure { lines.append($0) }, isEnabled: true,
          redacting: { $0 == "session.token" || $0 == "action.login.token" })
      ])
    for action in actions { store.dispatch(action) }
    return lines.all
  }

  @Test func logsTheActionTheTimeAndTheChange() {
    let lines = logged([.increment])
    #expect(lines.count == 1)
    #expect(lines[0].hasPrefix("▸ increment  "))
    #expect(lines[0].contains(" ms  count: 0 → 1"))
  }

  @Test func collectionsShowTheirSizeAndNestedChangesTheirPath() {
    let lines = logged([.addFilm("A New Hope"), .login("leia", token: "s3cr3t")])
    #expect(lines[0].hasSuffix("films: 0 elements → 1 elements"))
    #expect(lines[1].contains("session.user: guest → leia"))
  }

  @Test func sensitiveValuesAreRedacted() {
    let lines = logged([.login("leia", token: "s3cr3t")])
    #expect(lines[0].hasPrefix("▸ login(\"leia\", token: <redacted>)"))
    #expect(lines[0].contains("session.token: <redacted>"))
    #expect(!lines.joined().contains("s3cr3t"))
  }

  @Test func anActionThatChangesNothingSaysSo() {
    #expect(logged([.idle])[0].hasSuffix("(no change)"))
  }

  @Test func disabledLoggingWritesNothing() {
    let lines = LockedLines()
    let store = Store(
      reducer: Self.reducer, state: LoggedState(),
      middleware: [createLoggingMiddleware(to: .closure { lines.append($0) }, isEnabled: false)])
    store.dispatch(LoggedAction.increment)
    #expect(lines.all.isEmpty)
    #expect(store.state.count == 1)
  }
}

final class LockedLines: Sendable {
  private let lines = LockedForTests<[String]>([])
  func append(_ line: String) { lines.withLock { $0.append(line) } }
  var all: [String] { lines.withLock { $0 } }
}

final class LockedForTests<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value
  init(_ value: Value) { self.value = value }
  func withLock<R>(_ body: (inout Value) -> R) -> R {
    lock.lock()
    defer { lock.unlock() }
    return body(&value)
  }
}
