import Dispatch
import Foundation
import Statecraft
import StatecraftPrimitives
import StatecraftTestSupport
import StatecraftTools
import Testing

#if canImport(Glibc)
  import Glibc
  private let connectSocket = Glibc.connect
  private func sendByte(_ descriptor: Int32, _ byte: inout UInt8) -> Int {
    Glibc.send(descriptor, &byte, 1, Int32(MSG_NOSIGNAL))
  }
#elseif canImport(Darwin)
  import Darwin
  private let connectSocket = Darwin.connect
  private func sendByte(_ descriptor: Int32, _ byte: inout UInt8) -> Int {
    var one: Int32 = 1
    _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(4))
    return Darwin.send(descriptor, &byte, 1, 0)
  }
#endif

/// The app never waits on the inspector's port past its deadline: hostile or stalled listeners
/// on loopback, against the connection an app makes at its start.
@Suite(.catchesHangs) struct LiveConnectTests {
  /// A bound only a connection without a deadline reaches: a blocking connect to a full backlog
  /// waits out the kernel's SYN retries (about 127 s), a handshake answered one byte every
  /// 100 ms takes minutes for its 4 KiB; the deadline here is 500 ms.
  static let bound = Interval.patience

  @Test func connectingToAPortWhoseBacklogIsFullEndsAtTheDeadline() async throws {
    let port = try FullBacklog()
    defer { port.stop() }
    let result = await onItsOwnThread(failingAfter: Self.bound) { () -> String in
      do {
        _ = try LiveSocket.connect(
          host: "127.0.0.1", port: port.port, token: "0123456789abcdef0123456789abcdef",
          timeout: .milliseconds(500))
        return "connected"
      } catch {
        return "\(error)"
      }
    }
    let message = try #require(result, "connect blocked past \(Self.bound)")
    #expect(message.contains("did not answer within 500 ms"), "\(message)")
  }

  @Test func aHandshakeAnsweredOneByteAtATimeEndsAtTheDeadline() async throws {
    let trickler = try Trickler()
    defer { trickler.stop() }
    let result = await onItsOwnThread(failingAfter: Self.bound) { () -> String in
      do {
        _ = try LiveSocket.connect(
          host: "127.0.0.1", port: trickler.port, token: "0123456789abcdef0123456789abcdef",
          timeout: .milliseconds(500))
        return "connected"
      } catch {
        return "\(error)"
      }
    }
    let message = try #require(result, "the handshake went on past \(Self.bound)")
    #expect(message.contains("did not answer within 500 ms"), "\(message)")
    #expect(trickler.bytesSent > 0, "the listener never started answering")
  }

  @Test func anAppStartsAtOnceBesideAFullBacklogAndConnectsInTheBackground() async throws {
    let port = try FullBacklog()
    defer { port.stop() }
    let environment = [
      "STATECRAFT_INSPECTOR":
        "http://127.0.0.1:\(port.port)/?token=0123456789abcdef0123456789abcdef"
    ]
    let created = await onItsOwnThread(failingAfter: Self.bound) {
      LiveInspection<[Int]>.fromEnvironment(
        environment, registry: ActionRegistry(), reconnectInterval: .seconds(60))
    }
    let returned = try #require(created, "fromEnvironment blocked the app's start")
    let live = try #require(returned)
    #expect(!live.isConnected)
    live.close()
  }
}

/// A listener that never accepts, its backlog filled by connections the test made: a further
/// connection's SYN goes unanswered, as with a suspended inspector.
private final class FullBacklog: Sendable {
  let port: UInt16
  private let listener: Int32
  private let fillers: [Int32]

  init() throws {
    (listener, port) = try listenOnLoopback(backlog: 0)
    var fillers: [Int32] = []
    var address = loopbackAddress(port: port)
    // Linux keeps backlog + 1 connections waiting; a few more make sure that the queue is full
    // whatever the system's rounding.
    for _ in 0..<4 {
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL, 0) | O_NONBLOCK)
      _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connectSocket(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      fillers.append(descriptor)
    }
    self.fillers = fillers
  }

  func stop() {
    for descriptor in fillers { _ = close(descriptor) }
    _ = close(listener)
  }
}

/// Accepts one connection, reads its request, then answers one byte every 100 ms: each read
/// the app makes gets a byte long before any per-read limit.
private final class Trickler: Sendable {
  let port: UInt16
  private let stopped = DispatchSemaphore(value: 0)
  private let sent = Locked(0)
  private let listener: Int32

  var bytesSent: Int { sent.withLock { $0 } }

  init() throws {
    (listener, port) = try listenOnLoopback(backlog: 1)
    Thread { [listener, stopped, sent] in
      let client = accept(listener, nil, nil)
      guard client >= 0 else { return }
      defer { _ = close(client) }
      var block = [UInt8](repeating: 0, count: 4_096)
      _ = block.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
      let answer =
        Array("HTTP/1.1 101 Switching Protocols\r\nX-Padding: ".utf8)
        + [UInt8](repeating: UInt8(ascii: "x"), count: 4_096)
      for byte in answer {
        var byte = byte
        // Not `write`: once the app gives up and closes, a write would raise SIGPIPE.
        guard sendByte(client, &byte) == 1 else { return }
        sent.withLock { $0 += 1 }
        // The pace of the attack, ended at once by `stop()`.
        if stopped.wait(timeout: .now() + .milliseconds(100)) == .success { return }
      }
    }.start()
  }

  func stop() {
    stopped.signal()
    _ = shutdown(listener, Int32(SHUT_RDWR))
    _ = close(listener)
  }
}
