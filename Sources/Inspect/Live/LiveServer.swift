import Foundation
import Statecraft
import StatecraftInspector
import StatecraftPrimitives
import StatecraftTools

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `inspect --live`: a small HTTP server on loopback for the live page and the app.
///
/// It serves the page, streams the app's actions to it (Server-Sent Events), takes the page's
/// commands (POST) and holds the app's connection (an upgraded request, then JSON lines both
/// ways). Every client must present the
/// token printed at start; requests whose Host is not this server's are refused, so that a web
/// page elsewhere cannot reach it through DNS rebinding.
func runLiveInspector(_ settings: Options.LiveSettings) -> Never {
  let token = settings.token ?? randomToken()
  let listener: Int32
  let port: UInt16
  do {
    (listener, port) = try listen(on: settings.host, port: settings.port)
  } catch {
    fail("cannot listen on \(settings.host):\(settings.port): \(error)", status: 69)
  }
  let hostName = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
  let address = "http://\(hostName):\(port)/?token=\(token)"
  print(
    """
    inspect: live at \(address)
      Open it in a browser, and start the app with
      STATECRAFT_INSPECTOR=\(address)
      (LiveInspection.fromEnvironment reads it). Anyone with this address can see and change
      the app's state. Stop with Ctrl-C.
    """)
  fflush(nil)
  let server = LiveServer(
    token: token, allowedHosts: allowedHosts(settings.host, port), session: LiveSession())
  server.run(listener)
  fail("stopped accepting connections: \(String(cString: strerror(errno)))", status: 71)
}

/// 128 random bits as 32 hexadecimal digits.
func randomToken() -> String {
  var generator = SystemRandomNumberGenerator()
  return (0..<2).map { _ in
    let value = generator.next() as UInt64
    let text = String(value, radix: 16)
    return String(repeating: "0", count: 16 - text.count) + text
  }.joined()
}

/// The Host headers this server answers to.
func allowedHosts(_ host: String, _ port: UInt16) -> Set<String> {
  var hosts: Set<String> = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
  hosts.insert(host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
  return hosts
}

/// Accepts connections and serves each on a thread of its own, at most `limits.connections` at
/// once.
///
/// A connection holds a slot from accept to close. Until it has presented the token, it can be
/// evicted: when every slot is taken, the oldest connection without the token is closed to make
/// room for the new one. So connections without the token (a slow client, or one that sends a
/// byte at a time to hold slots) can delay a client with the token or a reconnecting app, but
/// never lock it out; and each request must arrive whole within `limits.requestTimeout`, however
/// its bytes trickle in. Only connections with the token (pages' event streams, the app) hold
/// their slots for long.
final class LiveServer: Sendable {
  /// How many connections are served at once, and how long a request may take to arrive.
  struct Limits: Sendable {
    var connections = 64
    var requestTimeout: Interval = .seconds(10)
  }

  /// An open connection: its descriptor, and whether it presented the token.
  ///
  /// To evict a connection, its descriptor is shut down under `slots`' lock; its thread removes
  /// the slot under the same lock before the descriptor is closed, so an eviction never reaches
  /// a number reused by another file.
  private struct Slot {
    let descriptor: Int32
    var hasToken = false
  }

  let token: String
  let allowedHosts: Set<String>
  let session: LiveSession
  let limits: Limits
  private let slots = Locked<(open: [UInt64: Slot], next: UInt64, isStopped: Bool)>(
    ([:], 0, false))

  init(token: String, allowedHosts: Set<String>, session: LiveSession, limits: Limits = Limits()) {
    self.token = token
    self.allowedHosts = allowedHosts
    self.session = session
    self.limits = limits
  }

  /// Accepts connections on `listener` until ``stop(_:)``, or until it fails.
  func run(_ listener: Int32) {
    while true {
      let descriptor = accept(listener, nil, nil)
      let failure = errno
      let id = slots.withLock { slots -> UInt64? in
        guard descriptor >= 0, !slots.isStopped else { return nil }
        if slots.open.count >= limits.connections {
          // Slots are keys in order of arrival: the smallest without the token is the oldest.
          guard let oldest = slots.open.filter({ !$0.value.hasToken }).keys.min() else {
            return nil
          }
          _ = shutdown(slots.open[oldest]?.descriptor ?? -1, Int32(SHUT_RDWR))
          slots.open[oldest] = nil
        }
        slots.next += 1
        slots.open[slots.next] = Slot(descriptor: descriptor)
        return slots.next
      }
      guard let id else {
        if descriptor >= 0 { _ = close(descriptor) }
        if slots.withLock({ $0.isStopped }) { return }
        if descriptor < 0, [EBADF, EINVAL, ENOTSOCK].contains(failure) { return }
        continue
      }
      let thread = Thread { [self] in
        let connection = HTTPConnection(descriptor: descriptor)
        // The descriptor stays open until the slot is gone: see `Slot`.
        withExtendedLifetime(connection) {
          serve(connection, slot: id)
          slots.withLock { $0.open[id] = nil }
        }
      }
      thread.start()
    }
  }

  /// Stops accepting: `run` returns once `listener` is shut down (or, on systems where that does
  /// not wake `accept`, at the next connection).
  func stop(_ listener: Int32) {
    slots.withLock { $0.isStopped = true }
    _ = shutdown(listener, Int32(SHUT_RDWR))
  }

  /// The connections open now.
  var openConnections: Int {
    slots.withLock { $0.open.count }
  }

  /// Marks the connection in `slot` as one that presented the token: it is no longer evicted.
  private func holdsToken(_ slot: UInt64) {
    slots.withLock { $0.open[slot]?.hasToken = true }
  }

  /// Compares in time that does not depend on where the strings differ.
  func isToken(_ candidate: String?) -> Bool {
    guard let candidate else { return false }
    let given = Array(candidate.utf8)
    let expected = Array(token.utf8)
    var difference = given.count ^ expected.count
    for index in expected.indices {
      difference |= Int(expected[index] ^ (index < given.count ? given[index] : 0))
    }
    return difference == 0
  }

  /// Why `request` is refused, judged on its head alone.
  ///
  /// It checks the host, the token and, for the page's commands, the origin. Nothing of a
  /// refused request's body is read.
  private func refusal(of request: HTTPConnection.Request) -> HTTPConnection.RequestError? {
    guard let host = request.headers["host"], allowedHosts.contains(host.lowercased()) else {
      return .forbidden("this inspector does not answer to that host")
    }
    let token: String?
    switch (request.method, request.path) {
    case ("GET", "/"), ("GET", "/events"):
      token = request.query["token"]
    case ("POST", "/command"), ("GET", "/export"), ("POST", "/import"), ("POST", "/test"):
      token = request.headers["x-statecraft-token"]
    case ("GET", "/app"):
      token = request.headers["authorization"].flatMap {
        $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil
      }
    default:
      return nil
    }
    guard isToken(token) else {
      return .forbidden("missing or wrong token: open the address `inspect --live` printed")
    }
    if request.path != "/", request.path != "/events", request.path != "/app",
      let origin = request.headers["origin"],
      !allowedHosts.contains(where: { "http://\($0)" == origin.lowercased() })
    {
      return .forbidden("foreign origin")
    }
    return nil
  }

  /// The largest body each route takes: a recording for `/import` and `/test`, a command for
  /// `/command`, nothing for the others.
  static func maximumBody(_ path: Substring) -> Int {
    switch path {
    case "/import", "/test": SessionReport.maximumImportBytes
    case "/command": 64 * 1_024
    default: 0
    }
  }

  private func serve(_ connection: HTTPConnection, slot: UInt64) {
    let request: HTTPConnection.Request
    do throws(HTTPConnection.RequestError) {
      request = try connection.readRequest(
        before: .now() + .nanoseconds(Int(clamping: limits.requestTimeout.nanoseconds)),
        maximumBody: Self.maximumBody, admit: refusal(of:))
    } catch {
      switch error {
      case .closed: break
      case .timedOut:
        connection.respond(
          status: "408 Request Timeout",
          body: Array("the request did not arrive within \(limits.requestTimeout)\n".utf8))
      case .malformed(let reason):
        connection.respond(status: "400 Bad Request", body: Array((reason + "\n").utf8))
      case .forbidden(let reason):
        connection.respond(status: "403 Forbidden", body: Array((reason + "\n").utf8))
      }
      return
    }
    switch (request.method, request.path) {
    case ("GET", "/"):
      holdsToken(slot)
      connection.respond(
        status: "200 OK", contentType: "text/html; charset=utf-8",
        headers:
          "Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; "
          + "style-src 'unsafe-inline'; connect-src 'self'; img-src data:; form-action 'none'; "
          + "frame-ancestors 'none'\r\n",
        body: Array(SessionReport.livePage(title: "Live").utf8))
    case ("GET", "/events"):
      holdsToken(slot)
      streamEvents(to: connection)
    case ("GET", "/export"):
      holdsToken(slot)
      exportRecording(connection)
    case ("POST", "/import"):
      holdsToken(slot)
      importRecording(request, connection)
    case ("POST", "/test"):
      holdsToken(slot)
      generateTest(request, connection)
    case ("POST", "/command"):
      holdsToken(slot)
      command(request, connection)
    case ("GET", "/app"):
      holdsToken(slot)
      holdApp(connection)
    default:
      connection.respond(status: "404 Not Found", body: Array("not found\n".utf8))
    }
  }

  private func command(_ request: HTTPConnection.Request, _ connection: HTTPConnection) {
    guard case .object(let object)? = try? JSONValue.parse(request.body),
      case .string(let name)? = object["command"],
      ["jump", "resume", "skip", "dispatch", "state", "lock", "commit", "revert"].contains(name)
    else {
      connection.respond(
        status: "400 Bad Request",
        body: Array(
          "a command is {\"command\": \"jump\"|\"resume\"|\"skip\"|\"dispatch\"|\"state\"|\"lock\"|\"commit\"|\"revert\", …}\n"
            .utf8))
      return
    }
    guard session.send(command: .object(object)) else {
      connection.respond(status: "409 Conflict", body: Array("no app is connected\n".utf8))
      return
    }
    connection.respond(status: "202 Accepted", body: Array("sent to the app\n".utf8))
  }

  private func streamEvents(to connection: HTTPConnection) {
    let head =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n" + HTTPConnection.commonHeaders
      + "Connection: keep-alive\r\n\r\n"
    guard connection.write(Array(head.utf8)) else { return }
    let client = LiveSession.Client()
    session.add(client)
    defer { session.remove(client) }
    while true {
      // A comment every 15 s finds a page that left.
      if client.wake.wait(timeout: .now() + 15) == .timedOut {
        guard connection.write(Array(": still here\n\n".utf8)) else { return }
        continue
      }
      let events = client.take(session)
      guard events.isEmpty || connection.write(Array(events.joined().utf8)) else { return }
    }
  }

  /// The longest line the app may send: a state or an action past it is skipped, and the pages
  /// say so.
  static let maximumAppLine = 64 << 20

  private func holdApp(_ connection: HTTPConnection) {
    let writer = Locked(connection.descriptor)
    let isAccepted = session.appConnected { bytes in
      writer.withLock { descriptor in
        descriptor >= 0 && HTTPConnection.write(bytes, to: descriptor)
      }
    }
    guard isAccepted else {
      connection.respond(
        status: "409 Conflict",
        body: Array(
          ("another app is connected to this inspector: start one inspector per app "
            + "(`inspect --live` prints a new address each time)\n").utf8))
      return
    }
    defer {
      // No command is written to the descriptor once it may be closed and reused.
      writer.withLock { $0 = -1 }
      session.appDisconnected()
    }
    let head =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: statecraft-live/1\r\nConnection: Upgrade\r\n\r\n"
    guard connection.write(Array(head.utf8)) else { return }
    var lines = AppLines(maximumLength: Self.maximumAppLine)
    while true {
      let chunk = connection.readSome()
      guard !chunk.isEmpty else { return }
      let (complete, skipped) = lines.append(chunk)
      if !complete.isEmpty { session.receive(lines: complete) }
      for size in skipped {
        session.report(
          problem: "the app sent a line of \(size) bytes (an action or a state), over the "
            + "inspector's limit of \(Self.maximumAppLine >> 20) MiB: it was skipped, and the "
            + "steps after it are shown without it")
      }
    }
  }
}
