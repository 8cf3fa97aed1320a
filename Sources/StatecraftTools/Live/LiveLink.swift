import Dispatch
import Statecraft
import StatecraftPrimitives

/// A live inspection's connection to the inspector, and what it takes to make it again.
///
/// The socket is read by the inspection's reading thread; lines are sent to it only once the
/// writer, in order with what it writes, has started the stream over for it
/// (``StateStream/restart(_:)``): lines meant for an inspector that went away go nowhere.
final class LiveLink: Sendable {
  let host: String
  let port: UInt16
  private let token: String
  private let reconnectInterval: Interval
  private let connection = Locked<(socket: LiveSocket?, isSending: Bool, isClosed: Bool)>(
    (nil, false, false))
  private let closing = DispatchSemaphore(value: 0)

  init(host: String, port: UInt16, token: String, reconnectInterval: Interval) {
    self.host = host
    self.port = port
    self.token = token
    self.reconnectInterval = reconnectInterval
  }

  /// Connects for the first time; lines are sent to it at once.
  ///
  /// - Parameter timeout: How long connecting and the inspector's answer may take together.
  /// - Returns: The connection.
  /// - Throws: ``LiveSocket/Failure`` when no inspector answers, or it refuses the token.
  func connect(timeout: Interval = .seconds(5)) throws -> LiveSocket {
    let socket = try LiveSocket.connect(
      host: host, port: port, token: token, timeout: timeout)
    connection.withLock { $0 = (socket, true, false) }
    return socket
  }

  /// Whether lines go to an inspector: one is connected and the stream started over for it.
  var isSending: Bool {
    connection.withLock { $0.isSending }
  }

  /// Sends `bytes` to the inspector, if one is connected and the stream started over for it.
  func send(_ bytes: [UInt8]) throws {
    let socket = connection.withLock { $0.isSending ? $0.socket : nil }
    try socket?.send(bytes)
  }

  /// Ends the connection, which the reading thread sees; lines are sent nowhere until
  /// ``reconnect(restarting:)`` makes another.
  func dropConnection() {
    let socket = connection.withLock { connection -> LiveSocket? in
      defer { connection.socket = nil }
      connection.isSending = false
      return connection.socket
    }
    socket?.close()
  }

  /// Tries to connect again every `reconnectInterval` until it does, or ``close()`` is called;
  /// `isFirst` when no connection was made yet (the first attempt failed, and said why).
  ///
  /// - Parameters:
  ///   - isFirst: Whether no connection was made yet.
  ///   - restart: Starts the stream over, calling its argument on the writer's thread when the
  ///     lines handed over before were written: from then on, lines go to the new connection.
  /// - Returns: The new connection, or `nil` when closed or told not to try.
  func reconnect(
    isFirst: Bool = false,
    restarting restart: (_ startSending: @escaping @Sendable () -> Void) -> Void
  ) -> LiveSocket? {
    guard !connection.withLock({ $0.isClosed }) else { return nil }
    if !isFirst {
      guard reconnectInterval > .zero else {
        print(
          "LiveInspection: the inspector at \(host):\(port) went away; live inspection stopped")
        return nil
      }
      print(
        "LiveInspection: the inspector at \(host):\(port) went away; trying again every "
          + "\(reconnectInterval) (start it again with the same --port and token)")
    }
    var lastFailure = ""
    while closing.wait(
      timeout: .now() + .nanoseconds(Int(clamping: reconnectInterval.nanoseconds)))
      == .timedOut
    {
      let socket: LiveSocket
      do {
        socket = try LiveSocket.connect(host: host, port: port, token: token)
      } catch {
        let failure = "\(error)"
        if failure != lastFailure, !failure.hasPrefix("no live inspector") {
          print("LiveInspection: \(failure)")
        }
        lastFailure = failure
        continue
      }
      let isClosed = connection.withLock { connection -> Bool in
        if !connection.isClosed { connection.socket = socket }
        return connection.isClosed
      }
      if isClosed {
        socket.close()
        return nil
      }
      restart { [connection] in
        connection.withLock { if $0.socket === socket { $0.isSending = true } }
      }
      print(
        "LiveInspection: connected \(isFirst ? "" : "again ")to the inspector at "
          + "\(host):\(port)")
      return socket
    }
    return nil
  }

  /// Ends the connection and stops connecting again.
  func close() {
    let socket = connection.withLock { connection -> LiveSocket? in
      defer { connection = (nil, false, true) }
      return connection.socket
    }
    closing.signal()
    socket?.close()
  }
}
