import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One accepted TCP connection: reading an HTTP request's head and body, writing responses.
final class HTTPConnection {
  let descriptor: Int32

  init(descriptor: Int32) {
    self.descriptor = descriptor
    var one: Int32 = 1
    _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(4))
    #if canImport(Darwin)
      _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(4))
    #endif
  }

  deinit {
    _ = close(descriptor)
  }

  struct Request {
    var method: String
    var path: String
    var query: [String: String]
    /// Header names in lower case.
    var headers: [String: String]
    var body: [UInt8]
  }

  /// Why no request was read.
  enum RequestError: Error, Equatable {
    /// The peer closed the connection or it failed: nobody to answer.
    case closed
    /// The whole request did not arrive before its deadline.
    case timedOut
    /// Not a request this server reads; the reason is the response's body.
    case malformed(String)
    /// Not a request this server answers (its host, its token); the reason is the response's
    /// body.
    case forbidden(String)
  }

  /// Headers a request may hold once: with two, a check could read one and the handler the
  /// other.
  static let singleHeaders: Set<String> = [
    "host", "content-length", "transfer-encoding", "authorization", "origin",
    "x-statecraft-token",
  ]

  /// Bytes read past the request's head and body: the start of a live connection's stream.
  private(set) var leftover: [UInt8] = []

  /// Reads one request: a head of at most 16 KiB and a body of at most `maximumBody(path)`
  /// bytes, all of it before `deadline`, however the bytes trickle in.
  ///
  /// `admit` sees the request with its head and no body yet, and returns why it is refused, if
  /// it is: a refused request's body is never read.
  func readRequest(
    before deadline: DispatchTime, maximumBody: (Substring) -> Int = { _ in 64 * 1_024 },
    admit: (Request) -> RequestError? = { _ in nil }
  ) throws(RequestError) -> Request {
    var bytes: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 4_096)
    var headEnd: Int?
    while headEnd == nil {
      guard bytes.count < 16_384 else { throw .malformed("the request's head is over 16 KiB") }
      bytes += try readBlock(&block, before: deadline)
      headEnd = Self.endOfHead(in: bytes)
    }
    guard let headEnd else { throw .closed }
    let head = String(decoding: bytes[..<headEnd], as: UTF8.self)
    var lines = head.components(separatedBy: "\r\n")
    let parts = lines.removeFirst().split(separator: " ")
    guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
      throw .malformed("not an HTTP request")
    }
    var headers: [String: String] = [:]
    for line in lines where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":") else { throw .malformed("a header without :") }
      let name = line[..<colon].lowercased()
      guard headers[name] == nil || !Self.singleHeaders.contains(name) else {
        throw .malformed("the \(name) header is given twice")
      }
      headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    guard headers["transfer-encoding"] == nil else {
      throw .malformed("send a body with Content-Length, not Transfer-Encoding")
    }
    let target = String(parts[1])
    let components = URLComponents(string: target)
    var query: [String: String] = [:]
    for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
    var request = Request(
      method: String(parts[0]), path: components?.path ?? target, query: query, headers: headers,
      body: [])
    if let refusal = admit(request) { throw refusal }
    var body = Array(bytes[headEnd...])
    let length = Int(headers["content-length"] ?? "0") ?? -1
    let maximum = maximumBody(parts[1].prefix { $0 != "?" })
    guard length >= 0, length <= maximum else {
      throw .malformed("a body is at most \(maximum) bytes, with its Content-Length")
    }
    body.reserveCapacity(length)
    while body.count < length {
      body += try readBlock(&block, before: deadline)
    }
    leftover = Array(body[length...])
    request.body = Array(body[..<length])
    return request
  }

  /// Waits for bytes until `deadline`, then reads what arrived into `block`.
  private func readBlock(
    _ block: inout [UInt8], before deadline: DispatchTime
  ) throws(RequestError) -> ArraySlice<UInt8> {
    while true {
      let now = DispatchTime.now().uptimeNanoseconds
      guard now < deadline.uptimeNanoseconds else { throw .timedOut }
      let milliseconds = (deadline.uptimeNanoseconds - now + 999_999) / 1_000_000
      var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&entry, 1, Int32(clamping: milliseconds))
      if ready < 0, errno == EINTR { continue }
      guard ready > 0 else {
        if ready == 0 { continue }  // the deadline is checked above
        throw .closed
      }
      let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { throw .closed }
      return block[..<count]
    }
  }

  /// The offset after the blank line that ends an HTTP head, if `bytes` holds it.
  static func endOfHead(in bytes: [UInt8]) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for index in 3..<bytes.count
    where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10
      && bytes[index - 3] == 13
    {
      return index + 1
    }
    return nil
  }

  /// Headers every response carries: nothing cached, no referrer (the address holds the token),
  /// no type guessing.
  static let commonHeaders =
    "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nX-Content-Type-Options: nosniff\r\n"

  /// Writes a whole response and reports whether it was sent.
  @discardableResult
  func respond(
    status: String, contentType: String = "text/plain; charset=utf-8", headers: String = "",
    body: [UInt8]
  ) -> Bool {
    let head =
      "HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
      + Self.commonHeaders + headers + "Connection: close\r\n\r\n"
    return write(Array(head.utf8) + body)
  }

  /// Writes all of `bytes`; `false` once the peer is gone.
  @discardableResult
  func write(_ bytes: [UInt8]) -> Bool {
    Self.write(bytes, to: descriptor)
  }

  /// Writes all of `bytes` to `descriptor`; `false` once the peer is gone.
  static func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { buffer in
        #if canImport(Glibc)
          send(
            descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset,
            Int32(MSG_NOSIGNAL))
        #else
          send(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset, 0)
        #endif
      }
      if written < 0, errno == EINTR { continue }
      guard written > 0 else { return false }
      offset += written
    }
    return true
  }

  /// Reads what arrives, up to `block` bytes; empty once the peer is gone.
  func readSome(block size: Int = 65_536) -> [UInt8] {
    if !leftover.isEmpty {
      defer { leftover = [] }
      return leftover
    }
    var block = [UInt8](repeating: 0, count: size)
    while true {
      let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      return count > 0 ? Array(block[..<count]) : []
    }
  }

}
