import Foundation
import Statecraft
import StatecraftTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A TCP client on 127.0.0.1 with blocking calls, for tests of a server; each read waits at most
/// ``Interval/patience``, a bound that only a hung server reaches.
final class LoopbackClient: Sendable {
  let descriptor: Int32

  init?(port: UInt16) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    var address = loopbackAddress(port: port)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      _ = close(descriptor)
      return nil
    }
    var timeout = timeval(tv_sec: Int(Interval.patience.nanoseconds / 1_000_000_000), tv_usec: 0)
    _ = setsockopt(
      descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    #if canImport(Darwin)
      var one: Int32 = 1
      _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(4))
    #endif
    self.descriptor = descriptor
  }

  deinit {
    _ = close(descriptor)
  }

  /// Sends all of `text`; `false` once the server closed the connection.
  @discardableResult
  func send(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { buffer in
        #if canImport(Glibc)
          Glibc.send(
            descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset,
            Int32(MSG_NOSIGNAL))
        #else
          Darwin.send(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset, 0)
        #endif
      }
      if written < 0, errno == EINTR { continue }
      guard written > 0 else { return false }
      offset += written
    }
    return true
  }

  /// Reads until the end of a response's head, the end of the connection, or 30 s.
  func readHead() -> String {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while !bytes.ends(with: [13, 10, 13, 10]) {
      let count = read(descriptor, &byte, 1)
      if count < 0, errno == EINTR { continue }
      guard count == 1 else { break }
      bytes.append(byte)
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Whether bytes (or the end of the connection) arrive within `milliseconds`.
  func isReadable(within milliseconds: Int32) -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, milliseconds) > 0
  }
}

extension Array where Element == UInt8 {
  fileprivate func ends(with suffix: [UInt8]) -> Bool {
    count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
  }
}
