import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A listening TCP socket on 127.0.0.1, for the stand-in servers of the tests.
///
/// - Parameters:
///   - port: The port, or 0 for a free one.
///   - backlog: How many connections may wait to be accepted.
///   - receiveBufferSize: The accepted connections' receive buffer, when a test needs it small
///     (so that a peer's sends block soon); `nil` keeps the system's.
/// - Returns: The listening descriptor and the port it listens on.
/// - Throws: `CocoaError(.fileWriteUnknown)` when the socket cannot be bound or listen.
public func listenOnLoopback(
  port: UInt16 = 0, backlog: Int32, receiveBufferSize: Int32? = nil
) throws -> (descriptor: Int32, port: UInt16) {
  let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  var one: Int32 = 1
  _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(4))
  if var size = receiveBufferSize {
    _ = setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(4))
  }
  var address = loopbackAddress(port: port)
  let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
    }
  }
  guard bound == 0, listen(listener, backlog) == 0 else {
    _ = close(listener)
    throw CocoaError(.fileWriteUnknown)
  }
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  _ = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
  }
  return (listener, UInt16(bigEndian: address.sin_port))
}

/// The IPv4 address 127.0.0.1:`port`.
///
/// - Parameter port: The port, or 0 for any.
/// - Returns: The address, for `bind` or `connect`.
public func loopbackAddress(port: UInt16) -> sockaddr_in {
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = port.bigEndian
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  return address
}
