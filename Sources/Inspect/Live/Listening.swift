import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The system's `listen`, which `listen(on:port:)` hides.
private func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 {
  #if canImport(Glibc)
    Glibc.listen(descriptor, backlog)
  #else
    Darwin.listen(descriptor, backlog)
  #endif
}

struct ListenError: Error, CustomStringConvertible {
  let description: String
}

func listen(on host: String, port: UInt16) throws -> (Int32, UInt16) {
  var hints = addrinfo()
  hints.ai_family = AF_UNSPEC
  hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST
  #if canImport(Glibc)
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
  #else
    hints.ai_socktype = SOCK_STREAM
  #endif
  var found: UnsafeMutablePointer<addrinfo>?
  guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found else {
    throw ListenError(description: "\(host) is not a numeric address (127.0.0.1, ::1, 0.0.0.0)")
  }
  defer { freeaddrinfo(found) }
  let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, 0)
  guard descriptor >= 0 else { throw ListenError(description: String(cString: strerror(errno))) }
  var one: Int32 = 1
  _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(4))
  guard bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0,
    systemListen(descriptor, 64) == 0
  else {
    let reason = String(cString: strerror(errno))
    _ = close(descriptor)
    throw ListenError(description: reason)
  }
  var address = sockaddr_storage()
  var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
  }
  guard bound == 0 else { throw ListenError(description: String(cString: strerror(errno))) }
  let family = Int32(address.ss_family)
  let actual = withUnsafePointer(to: &address) { pointer -> UInt16 in
    if family == AF_INET6 {
      return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
        UInt16(bigEndian: $0.pointee.sin6_port)
      }
    }
    return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
      UInt16(bigEndian: $0.pointee.sin_port)
    }
  }
  return (descriptor, actual)
}
