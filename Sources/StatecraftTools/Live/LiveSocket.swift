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

  /// Connects to `host`:`port` and asks for the live protocol with `token`.
  ///
  /// - Parameters:
  ///   - host: The inspector's host.
  ///   - port: The inspector's port.
  ///   - token: The token the inspector printed.
  ///   - handshakeTimeout: How long the inspector has to answer.
  /// - Returns: The connection, with the live protocol agreed.
  /// - Throws: ``Failure`` if nothing listens there, the inspector refuses the token, or it does
  ///   not answer within `handshakeTimeout` (it is suspended, or something else holds the port).
  package static func connect(
    host: String, port: UInt16, token: String, handshakeTimeout: Interval = .seconds(5)
  ) throws -> LiveSocket {
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
    var address: UnsafeMutablePointer<addrinfo>? = first
    var lastError = ECONNREFUSED
    while let candidate = address {
      address = candidate.pointee.ai_next
      let descriptor = socket(
        candidate.pointee.ai_family, candidate.pointee.ai_socktype, candidate.pointee.ai_protocol)
      guard descriptor >= 0 else { continue }
      if Foundation.connect(descriptor, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen)
        == 0
      {
        let socket = LiveSocket(descriptor: descriptor)
        socket.configure()
        try socket.handshake(host: host, port: port, token: token, timeout: handshakeTimeout)
        return socket
      }
      lastError = errno
      _ = Foundation.close(descriptor)
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

  /// Bounds each blocking read and send; `.zero` for no bound.
  private func setTimeouts(_ limit: Interval) {
    let microseconds = limit.nanoseconds / 1_000
    var timeout = timeval(
      tv_sec: .init(clamping: microseconds / 1_000_000),
      tv_usec: .init(clamping: microseconds % 1_000_000))
    for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
      _ = setsockopt(
        descriptor, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
  }

  private func handshake(host: String, port: UInt16, token: String, timeout: Interval) throws {
    // The handshake is bounded; the stream after it is not (``close()`` ends a blocked send).
    setTimeouts(timeout)
    let request =
      "GET /app HTTP/1.1\r\nHost: \(host):\(port)\r\nAuthorization: Bearer \(token)\r\n"
      + "Connection: Upgrade\r\nUpgrade: statecraft-live/1\r\n\r\n"
    try send(Array(request.utf8))
    var head: [UInt8] = []
    var byte: UInt8 = 0
    // The response head, byte by byte so that nothing after it is consumed: at most 4 KiB.
    var timedOut = false
    while head.count < 4_096 {
      let count = read(descriptor, &byte, 1)
      if count < 0, errno == EINTR { continue }
      timedOut = count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
      guard count == 1 else { break }
      head.append(byte)
      if head.suffix(4) == [13, 10, 13, 10] { break }
    }
    let status = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
    guard status.hasPrefix("HTTP/1.1 101") else {
      close()
      if timedOut {
        throw Failure(
          "\(host):\(port) did not answer within \(timeout): the inspector is "
            + "suspended, or something else listens there")
      }
      throw Failure(
        status.contains(" 403 ")
          ? "the live inspector refused the token: use the address it printed"
          : "the live inspector answered \(status.isEmpty ? "nothing" : String(status))")
    }
    setTimeouts(.zero)
  }

  /// Writes all of `bytes`.
  package func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { buffer in
        #if canImport(Glibc) || canImport(Musl)
          Foundation.send(
            descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset,
            Int32(MSG_NOSIGNAL))
        #else
          Foundation.send(
            descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset, 0)
        #endif
      }
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
