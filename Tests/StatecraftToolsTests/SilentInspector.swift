import Foundation
import Statecraft
import StatecraftPrimitives
import StatecraftTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A stand-in for `inspect --live` that misbehaves as a suspended inspector does: it accepts
/// every connection and reads the app's request, then answers only once ``answer()`` is called,
/// and after answering reads the app's lines only if told to.
final class SilentInspector: Sendable {
  let port: UInt16
  private let listener: Int32
  /// The accepted connections. ``stop()`` shuts them down under the lock; each connection's
  /// thread removes its own under the lock before closing it, so no call reaches a descriptor
  /// number reused by another test.
  private let clients = Locked<(descriptors: [Int32], isStopped: Bool)>(([], false))
  private let gate = Locked<(isOpen: Bool, waiting: [DispatchSemaphore])>((false, []))
  private let holding = Locked<[DispatchSemaphore]>([])
  private let lines: AsyncStream<String>.Continuation
  /// The lines of the app's stream, from every connection, once answered.
  let received: AsyncStream<String>

  /// Listens on a free port; with `readsLines` false it never reads after answering, and the
  /// listener's small receive buffer makes the app's sends block soon.
  init(readsLines: Bool = true) throws {
    (received, lines) = AsyncStream.makeStream(of: String.self)
    let (listener, port) = try listenOnLoopback(
      backlog: 16, receiveBufferSize: readsLines ? nil : 4_096)
    self.port = port
    self.listener = listener
    Thread { [self] in
      defer { _ = close(listener) }
      while true {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        let isKept = clients.withLock { clients -> Bool in
          guard !clients.isStopped else { return false }
          clients.descriptors.append(client)
          return true
        }
        guard isKept else {
          _ = close(client)
          return
        }
        Thread { [self] in serve(client, readsLines: readsLines) }.start()
      }
    }.start()
  }

  deinit {
    stop()
  }

  var url: URL {
    URL(string: "http://127.0.0.1:\(port)/?token=0123456789abcdef0123456789abcdef")!
  }

  /// The first line received that satisfies `predicate`, or `nil` after ``Interval/patience``:
  /// a bound only a hang reaches.
  func line(where predicate: @escaping @Sendable (String) -> Bool) async -> String? {
    await withTaskGroup(of: String?.self) { group in
      group.addTask { [received] in
        for await line in received where predicate(line) { return line }
        return nil
      }
      group.addTask {
        try? await Task.sleep(nanoseconds: Interval.patience.nanoseconds)
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
  }

  /// Answers the requests read so far, and every later one at once.
  func answer() {
    let waiting = gate.withLock { gate in
      defer { gate = (true, []) }
      return gate.waiting
    }
    for semaphore in waiting { semaphore.signal() }
  }

  /// Ends every connection and stops listening.
  func stop() {
    clients.withLock { clients in
      guard !clients.isStopped else { return }
      clients.isStopped = true
      _ = shutdown(listener, Int32(SHUT_RDWR))
      for descriptor in clients.descriptors { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
    }
    answer()
    for semaphore in holding.withLock({ $0 }) { semaphore.signal() }
    lines.finish()
  }

  private func serve(_ client: Int32, readsLines: Bool) {
    defer {
      clients.withLock { $0.descriptors.removeAll { $0 == client } }
      _ = close(client)
    }
    var bytes: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 65_536)
    // The request's head.
    while !String(decoding: bytes, as: UTF8.self).contains("\r\n\r\n") {
      let count = block.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
      guard count > 0 else { return }
      bytes += block[..<count]
    }
    let semaphore = DispatchSemaphore(value: 0)
    let isOpen = gate.withLock { gate -> Bool in
      if !gate.isOpen { gate.waiting.append(semaphore) }
      return gate.isOpen
    }
    if !isOpen { semaphore.wait() }
    guard !clients.withLock({ $0.isStopped }) else { return }
    let head = Array("HTTP/1.1 101 Switching Protocols\r\n\r\n".utf8)
    #if canImport(Glibc)
      _ = send(client, head, head.count, Int32(MSG_NOSIGNAL))
    #else
      _ = send(client, head, head.count, 0)
    #endif
    guard readsLines else {
      // Holds the connection, reading nothing, until stopped.
      let stopped = DispatchSemaphore(value: 0)
      holding.withLock { $0.append(stopped) }
      if !clients.withLock({ $0.isStopped }) { stopped.wait() }
      return
    }
    bytes = []
    while true {
      let count = block.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
      guard count > 0 else { return }
      bytes += block[..<count]
      while let newline = bytes.firstIndex(of: 10) {
        lines.yield(String(decoding: bytes[..<newline], as: UTF8.self))
        bytes.removeSubrange(...newline)
      }
    }
  }
}
