import Foundation
import Statecraft
import StatecraftPrimitives

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A TCP connection to a live inspector, through POSIX sockets: Foundation's `URLSession` on
/// Linux cannot hold a connection open in both directions.
package final class LiveSocket: Sendable {
  /// Why a connection could not be made or used.
  package struct Failure: Error, CustomStringConvertible, LocalizedError {
    package let description: String
    package var errorDescription: String? { description }
    init(_ description: String) { self.description = description }
  }

  /// Open until the socket is released, even after ``close()``.
  package let descriptor: Int32
  private let isClosed = Locked(false)

  private init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  deinit {
    // Closed only once no thread holds the socket: a descriptor closed while another thread may
    // still read or send with it could be reused by an unrelated file or socket of the app.
    _ = Foundation.close(descriptor)
  }

  /// Connects to `host`:`port` and asks for the live protocol with `token`, all within `timeout`.
  ///
  /// The connection and the handshake share one deadline, and nothing blocks past it: a port
  /// whose listen backlog is full (a listener that never accepts, a suspended inspector) and a
  /// listener that answers one byte at a time both fail once `timeout` has passed.
  ///
  /// - Parameters:
  ///   - host: The inspector's host.
  ///   - port: The inspector's port.
  ///   - token: The token the inspector printed.
  ///   - timeout: How long connecting and the inspector's answer may take together.
  /// - Returns: The connection, with the live protocol agreed.
  /// - Throws: ``Failure`` if nothing listens there, the inspector refuses the token, or
  ///   connecting and its answer do not end within `timeout` (it is suspended, or something else
  ///   holds the port).
  package static func connect(
    host: String, port: UInt16, token: String, timeout: Interval = .seconds(5)
  ) throws -> LiveSocket {
    let deadline = MonotonicClock.now + timeout.nanoseconds
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Glibc) || canImport(Musl)
      hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
      hints.ai_socktype = SOCK_STREAM
    #endif
    var found: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
      throw Failure("cannot resolve \(host)")
    }
    defer { freeaddrinfo(found) }
    let timedOut = Failure(
      "\(host):\(port) did not answer within \(timeout): the inspector is suspended, or "
        + "something else listens there")
    var address: UnsafeMutablePointer<addrinfo>? = first
    var lastError = ECONNREFUSED
    while let candidate = address {
      address = candidate.pointee.ai_next
      let descriptor = socket(
        candidate.pointee.ai_family, candidate.pointee.ai_socktype, candidate.pointee.ai_protocol)
      guard descriptor >= 0 else { continue }
      let socket = LiveSocket(descriptor: descriptor)
      socket.setBlocking(false)
      var result = Foundation.connect(
        descriptor, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen)
      if result != 0, errno == EINPROGRESS {
        guard socket.wait(for: Int16(POLLOUT), until: deadline) else { throw timedOut }
        var error: Int32 = 0
        var length = socklen_t(4)
        _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
        result = error == 0 ? 0 : -1
        errno = error
      }
      guard result == 0 else {
        lastError = errno
        continue
      }
      socket.configure()
      try socket.handshake(host: host, port: port, token: token, until: deadline, timedOut)
      socket.setBlocking(true)
      return socket
    }
    throw Failure(
      "no live inspector at \(host):\(port) (\(String(cString: strerror(lastError)))): "
        + "start it with `swift run inspect --live`")
  }

  private func configure() {
    var one: Int32 = 1
    _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(4))
    #if canImport(Darwin)
      _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(4))
    #endif
  }

  private func setBlocking(_ isBlocking: Bool) {
    let flags = fcntl(descriptor, F_GETFL, 0)
    _ = fcntl(descriptor, F_SETFL, isBlocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK)
  }

  /// Waits until the socket is ready for `events` or `deadline` (``MonotonicClock``) passes;
  /// returns whether it is ready (or failed, which the next call on it reports).
  private func wait(for events: Int16, until deadline: UInt64) -> Bool {
    while true {
      let now = MonotonicClock.now
      guard now < deadline else { return false }
      var entry = pollfd(fd: descriptor, events: events, revents: 0)
      let milliseconds = Int32(clamping: (deadline - now + 999_999) / 1_000_000)
      let count = poll(&entry, 1, milliseconds)
      if count > 0 { return true }
      if count < 0, errno != EINTR { return true }
    }
  }

  /// Sends the upgrade request and reads the answer's head, on the non-blocking socket, before
  /// `deadline`.
  private func handshake(
    host: String, port: UInt16, token: String, until deadline: UInt64, _ timedOut: Failure
  ) throws {
    let request = Array(
      ("GET /app HTTP/1.1\r\nHost: \(host):\(port)\r\nAuthorization: Bearer \(token)\r\n"
        + "Connection: Upgrade\r\nUpgrade: statecraft-live/1\r\n\r\n").utf8)
    var offset = 0
    while offset < request.count {
      let written = request.withUnsafeBytes { sendSome($0, from: offset) }
      if written >= 0 {
        offset += written
      } else if errno == EAGAIN || errno == EWOULDBLOCK {
        guard wait(for: Int16(POLLOUT), until: deadline) else { throw timedOut }
      } else if errno != EINTR {
        throw Failure("the live inspector's connection broke: \(String(cString: strerror(errno)))")
      }
    }
    var head: [UInt8] = []
    var byte: UInt8 = 0
    // The response head, byte by byte so that nothing after it is consumed: at most 4 KiB.
    while head.count < 4_096, head.suffix(4) != [13, 10, 13, 10] {
      let count = read(descriptor, &byte, 1)
      if count == 1 {
        head.append(byte)
      } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
        guard wait(for: Int16(POLLIN), until: deadline) else { throw timedOut }
      } else if count == 0 || errno != EINTR {
        break
      }
    }
    let status = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
    guard status.hasPrefix("HTTP/1.1 101") else {
      throw Failure(
        status.contains(" 403 ")
          ? "the live inspector refused the token: use the address it printed"
          : "the live inspector answered \(status.isEmpty ? "nothing" : String(status))")
    }
  }

  /// Sends what it can of `bytes` from `offset`: the count sent, or -1 with `errno` set.
  private func sendSome(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> Int {
    #if canImport(Glibc) || canImport(Musl)
      Foundation.send(
        descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset,
        Int32(MSG_NOSIGNAL))
    #else
      Foundation.send(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, 0)
    #endif
  }

  /// Writes all of `bytes`.
  package func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { sendSome($0, from: offset) }
      if written < 0 {
        if errno == EINTR { continue }
        throw Failure("the live inspector's connection broke: \(String(cString: strerror(errno)))")
      }
      offset += written
    }
  }

  /// Reads lines until the connection ends, handing each to `receive`; lines longer than
  /// `maximumLength` bytes end the connection.
  package func readLines(maximumLength: Int = 1 << 20, _ receive: (ArraySlice<UInt8>) -> Void) {
    var pending: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 16_384)
    while true {
      let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return }
      pending += block[..<count]
      while let end = pending.firstIndex(of: 10) {
        receive(pending[..<end])
        pending.removeSubrange(...end)
      }
      if pending.count > maximumLength { return }
    }
  }

  /// Ends the connection in both directions.
  ///
  /// A blocked `readLines` returns, and later sends fail; the descriptor itself is released
  /// with the last reference to the socket.
  package func close() {
    let wasClosed = isClosed.withLock { isClosed in
      defer { isClosed = true }
      return isClosed
    }
    guard !wasClosed else { return }
    _ = shutdown(descriptor, Int32(SHUT_RDWR))
  }
}
