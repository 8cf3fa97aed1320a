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
    setReceiveTimeout(seconds: 10)
  }

  deinit {
    _ = close(descriptor)
  }

  /// A limit on how long a read waits: a client that sends nothing is dropped.
  func setReceiveTimeout(seconds: Int) {
    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
    _ = setsockopt(
      descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  struct Request {
    var method: String
    var path: String
    var query: [String: String]
    /// Header names in lower case.
    var headers: [String: String]
    var body: [UInt8]
  }

  /// Bytes read past the request's head and body: the start of a live connection's stream.
  private(set) var leftover: [UInt8] = []

  /// Reads one request: a head of at most 16 KiB and a body of at most `maximumBody` bytes.
  func readRequest(maximumBody: Int = 64 * 1_024) -> Request? {
    var bytes: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 4_096)
    var headEnd: Int?
    while headEnd == nil {
      guard bytes.count < 16_384 else { return nil }
      let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return nil }
      bytes += block[..<count]
      headEnd = Self.endOfHead(in: bytes)
    }
    guard let headEnd else { return nil }
    let head = String(decoding: bytes[..<headEnd], as: UTF8.self)
    var lines = head.components(separatedBy: "\r\n")
    let parts = lines.removeFirst().split(separator: " ")
    guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
    var headers: [String: String] = [:]
    for line in lines where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":") else { return nil }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
        .trimmingCharacters(in: .whitespaces)
    }
    var body = Array(bytes[headEnd...])
    let length = Int(headers["content-length"] ?? "0") ?? -1
    guard length >= 0, length <= maximumBody else { return nil }
    while body.count < length {
      let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return nil }
      body += block[..<count]
    }
    leftover = Array(body[length...])
    body = Array(body[..<length])
    let target = String(parts[1])
    let components = URLComponents(string: target)
    var query: [String: String] = [:]
    for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
    return Request(
      method: String(parts[0]), path: components?.path ?? target, query: query, headers: headers,
      body: body)
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
