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
}
