import Dispatch
import Foundation
import Statecraft
import StatecraftInspector
import StatecraftPrimitives
import StatecraftTestSupport
import StatecraftTools
import Testing

@testable import Inspect

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `inspect --live`'s server in this process, on loopback, against clients that hold its slots,
/// trickle their requests or send a header twice.
@Suite(.bounded(minutes: 1)) struct LiveServerTests {
  static let token = "0123456789abcdef0123456789abcdef"

  /// A server on 127.0.0.1, accepting on a thread of its own until `stop()`.
  final class Running: Sendable {
    let server: LiveServer
    let listener: Int32
    let port: UInt16

    init(limits: LiveServer.Limits) throws {
      (listener, port) = try Inspect.listen(on: "127.0.0.1", port: 0)
      server = LiveServer(
        token: LiveServerTests.token, allowedHosts: allowedHosts("127.0.0.1", port),
        session: LiveSession(), limits: limits)
      Thread { [server, listener] in
        server.run(listener)
        _ = close(listener)
      }.start()
    }

    func stop() {
      server.stop(listener)
    }

    func request(_ head: String) -> String {
      head.replacingOccurrences(of: "HOST", with: "127.0.0.1:\(port)") + "\r\n"
    }

    var pageRequest: String {
      request("GET /?token=\(LiveServerTests.token) HTTP/1.1\r\nHost: HOST\r\n")
    }

    var appRequest: String {
      request(
        "GET /app HTTP/1.1\r\nHost: HOST\r\nAuthorization: Bearer \(LiveServerTests.token)\r\n"
          + "Connection: Upgrade\r\nUpgrade: statecraft-live/1\r\n")
    }
  }

  @Test func aClientWithTheTokenAndTheAppAreServedWhileClientsWithoutItHoldEverySlot() async throws
  {
    // A request may take a minute: the clients without the token keep their slots by the
    // deadline, and only eviction makes room.
    let running = try Running(limits: .init(connections: 4, requestTimeout: .seconds(60)))
    defer { running.stop() }
    let port = running.port
    let result = await onItsOwnThread { () -> (String, String, String, [LoopbackClient]) in
      // Each starts a request it never finishes; the server accepts in the order of connection.
      var holders: [LoopbackClient] = []
      for _ in 0..<4 {
        guard let client = LoopbackClient(port: port) else { break }
        client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n")
        holders.append(client)
      }
      let page = LoopbackClient(port: port)
      page?.send(running.pageRequest)
      let pageHead = page?.readHead() ?? ""
      let app = LoopbackClient(port: port)
      app?.send(running.appRequest)
      let appHead = app?.readHead() ?? ""
      // The app holds its slot: a page after it is still served.
      let second = LoopbackClient(port: port)
      second?.send(running.pageRequest)
      return (pageHead, appHead, second?.readHead() ?? "", holders + [app].compactMap { $0 })
    }
    let (pageHead, appHead, secondPageHead, holders) = try #require(result)
    #expect(holders.count == 5)
    #expect(pageHead.hasPrefix("HTTP/1.1 200 OK"), "\(pageHead)")
    #expect(appHead.hasPrefix("HTTP/1.1 101 "), "\(appHead)")
    #expect(secondPageHead.hasPrefix("HTTP/1.1 200 OK"), "\(secondPageHead)")
    #expect(running.server.openConnections <= 4)
  }

  @Test func aRequestThatTricklesInPastItsDeadlineIsAnsweredWith408() async throws {
    // Short, so that the test does not wait for the real 10 s; the client sends a byte every
    // 20 ms, far more often than any limit on a single read.
    let running = try Running(limits: .init(connections: 4, requestTimeout: .milliseconds(200)))
    defer { running.stop() }
    let port = running.port
    let answer = await onItsOwnThread { () -> String? in
      guard let client = LoopbackClient(port: port) else { return nil }
      client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Slow: ")
      // A bound only a server without a deadline reaches.
      let giveUp = MonotonicClock.now + Interval.patience.nanoseconds
      while MonotonicClock.now < giveUp {
        if client.isReadable(within: 20) { return client.readHead() }
        guard client.send("x") else { return client.readHead() }
      }
      return nil
    }
    #expect(
      answer??.hasPrefix("HTTP/1.1 408 Request Timeout") == true, "\(String(describing: answer))")
  }

  @Test(arguments: [
    "Host: HOST\r\nHost: attacker.example\r\n", "Host: attacker.example\r\nHost: HOST\r\n",
  ])
  func aRequestWithTwoHostHeadersIsRefused(hosts: String) async throws {
    let running = try Running(limits: .init())
    defer { running.stop() }
    let port = running.port
    let request = running.request("GET /?token=\(Self.token) HTTP/1.1\r\n\(hosts)")
    let head = try #require(
      await onItsOwnThread { () -> String in
        guard let client = LoopbackClient(port: port) else { return "" }
        client.send(request)
        return client.readHead()
      })
    #expect(head.hasPrefix("HTTP/1.1 400 Bad Request"), "\(head)")
  }

  @Test(arguments: ["", "X-Statecraft-Token: wrong-token-0123456789\r\n"])
  func aTokenlessImportIsRefusedOnItsHeadBeforeItsBodyIsRead(tokenHeader: String) async throws {
    // Ten minutes for the request: a server that read the body first would wait for its 64 MiB
    // (never sent) and answer nothing within the test's patience.
    let running = try Running(limits: .init(connections: 4, requestTimeout: .seconds(600)))
    defer { running.stop() }
    let port = running.port
    let request = running.request(
      "POST /import HTTP/1.1\r\nHost: HOST\r\n\(tokenHeader)Content-Length: \(64 << 20)\r\n")
    let head = try #require(
      await onItsOwnThread { () -> String in
        guard let client = LoopbackClient(port: port) else { return "" }
        client.send(request)
        client.send(String(repeating: "x", count: 1_024))
        return client.readHead()
      }, "the server waited for the body of a request it refuses")
    #expect(head.hasPrefix("HTTP/1.1 403 Forbidden"), "\(head)")
  }

  @Test func aSecondAppIsRefusedAndTheFirstKeepsItsSession() async throws {
    let running = try Running(limits: .init())
    defer { running.stop() }
    let port = running.port
    let page = LiveSession.Client()
    running.server.session.add(page)
    let result = await onItsOwnThread { () -> (String, String, LoopbackClient?) in
      let first = LoopbackClient(port: port)
      first?.send(running.appRequest)
      let firstHead = first?.readHead() ?? ""
      let second = LoopbackClient(port: port)
      second?.send(running.appRequest)
      let secondHead = second?.readHead() ?? ""
      return (firstHead, secondHead, first)
    }
    let (firstHead, secondHead, first) = try #require(result)
    #expect(firstHead.hasPrefix("HTTP/1.1 101 "), "\(firstHead)")
    #expect(secondHead.hasPrefix("HTTP/1.1 409 Conflict"), "\(secondHead)")
    // The first app still holds the session: the page's commands reach it.
    #expect(running.server.session.send(command: .object(["command": .string("resume")])))
    withExtendedLifetime(first) {}
  }
}

/// How `inspect --live` cuts the app's stream into lines.
@Suite struct AppLinesTests {
  @Test func linesSplitAcrossChunksComeWholeAndEmptyOnesAreDropped() {
    var lines = AppLines(maximumLength: 100)
    let first = lines.append(Array("{\"a\":1}\n{\"b\"".utf8))
    let second = lines.append(Array(":2}\n\n{\"c\":3}\n".utf8))
    let texts = (first.lines + second.lines).map { String(decoding: $0, as: UTF8.self) }
    #expect(texts == [#"{"a":1}"#, #"{"b":2}"#, #"{"c":3}"#])
    #expect(first.skipped.isEmpty && second.skipped.isEmpty)
  }

  @Test func aLineOverTheLimitIsSkippedWithItsLengthAndTheNextOneComes() {
    var lines = AppLines(maximumLength: 10)
    var skipped: [Int] = []
    var texts: [String] = []
    for chunk in [
      "short\n" + String(repeating: "x", count: 8), String(repeating: "y", count: 30),
      "zz\nafter\n",
    ] {
      let result = lines.append(Array(chunk.utf8))
      skipped += result.skipped
      texts += result.lines.map { String(decoding: $0, as: UTF8.self) }
    }
    #expect(texts == ["short", "after"])
    #expect(skipped == [40])
  }

  @Test func aLineOverTheLimitIsSkippedLookingAtEachByteOnce() {
    // A stream that rescanned what it held on every read looked at a line's bytes once per
    // chunk: about 48 s for a 20 MB line, minutes for 100 MB. Counted, not timed.
    var lines = AppLines(maximumLength: 1 << 20)
    let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 65_536)
    var skipped: [Int] = []
    for _ in 0..<128 { skipped += lines.append(chunk).skipped }
    let end = lines.append(Array("\n{\"next\":1}\n".utf8))
    #expect(skipped + end.skipped == [128 * 65_536])
    #expect(end.lines.map { String(decoding: $0, as: UTF8.self) } == [#"{"next":1}"#])
    #expect(lines.bytesExamined == 128 * 65_536 + 12)
  }
}
