import Dispatch
import Foundation
import Statecraft
import StatecraftInspector
import StatecraftPrimitives
import StatecraftTestSupport
import Testing

@testable import StatecraftTools

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `LiveInspection` against a stand-in for `inspect --live` on loopback: what the app sends, and
/// the page's commands carried out in the store.
@Suite(.catchesHangs) struct LiveInspectionTests {
  enum Step: Action, Codable, Equatable {
    case add(Int)
  }

  static let reducer: Reducer<[Int]> = { action, state in
    var state = state ?? []
    if case .add(let value) = action as? Step { state.append(value) }
    return state
  }

  /// Counts how often it is encoded, which is what the app spends on the inspector.
  struct Counted: Action, Codable, Equatable {
    static let encodings = Locked(0)
    let value: Int

    init(_ value: Int) {
      self.value = value
    }

    init(from decoder: any Decoder) throws {
      value = try decoder.singleValueContainer().decode(Int.self)
    }

    func encode(to encoder: any Encoder) throws {
      Self.encodings.withLock { $0 += 1 }
      var container = encoder.singleValueContainer()
      try container.encode(value)
    }
  }

  static var registry: ActionRegistry {
    var registry = ActionRegistry()
    registry.register(Step.self)
    return registry
  }

  /// Accepts one connection, answers its request with `status`, then collects its lines and
  /// writes the commands it is given.
  final class Inspector: Sendable {
    let port: UInt16
    /// The listening socket until a client connects, then the client's; -1 once closed. Only
    /// the stand-in's thread closes them, and `stop()` shuts them down under the lock while
    /// they are open, so that no call reaches a descriptor number reused by another test.
    private let sockets = Locked<(listener: Int32, client: Int32, isStopped: Bool)>(
      (-1, -1, false))
    private let received = Locked<[String]>([])

    /// Listens on `port`, or on a free one when it is 0.
    init(status: String = "101 Switching Protocols", port: UInt16 = 0) throws {
      let (listener, port) = try listenOnLoopback(port: port, backlog: 1)
      self.port = port
      sockets.withLock { $0.listener = listener }
      let thread = Thread { [sockets, received, status] in
        let client = accept(listener, nil, nil)
        let isKept = sockets.withLock { sockets -> Bool in
          _ = close(sockets.listener)
          sockets.listener = -1
          guard client >= 0, !sockets.isStopped else { return false }
          sockets.client = client
          return true
        }
        guard isKept else {
          if client >= 0 { _ = close(client) }
          return
        }
        defer {
          sockets.withLock { sockets in
            _ = close(sockets.client)
            sockets.client = -1
          }
        }
        var bytes: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 65_536)
        var answered = false
        while true {
          let count = block.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
          guard count > 0 else { return }
          bytes += block[..<count]
          if !answered, let end = String(decoding: bytes, as: UTF8.self).range(of: "\r\n\r\n") {
            let head = "HTTP/1.1 \(status)\r\n\r\n"
            _ = head.withCString { write(client, $0, strlen($0)) }
            answered = true
            bytes = Array(String(decoding: bytes, as: UTF8.self)[end.upperBound...].utf8)
          }
          while answered, let newline = bytes.firstIndex(of: 10) {
            let line = String(decoding: bytes[..<newline], as: UTF8.self)
            received.withLock { $0.append(line) }
            bytes.removeSubrange(...newline)
          }
        }
      }
      thread.start()
    }

    deinit {
      stop()
    }

    /// Goes away: ends the app's connection and stops listening.
    func stop() {
      sockets.withLock { sockets in
        sockets.isStopped = true
        if sockets.listener >= 0 { _ = shutdown(sockets.listener, Int32(SHUT_RDWR)) }
        if sockets.client >= 0 { _ = shutdown(sockets.client, Int32(SHUT_RDWR)) }
      }
    }

    var lines: [String] { received.withLock { $0 } }

    func send(_ command: String) {
      sockets.withLock { sockets in
        guard sockets.client >= 0 else { return }
        _ = (command + "\n").withCString { write(sockets.client, $0, strlen($0)) }
      }
    }

    var url: URL {
      URL(string: "http://127.0.0.1:\(port)/?token=0123456789abcdef0123456789abcdef")!
    }
  }

  /// A store of `[Int]` that `live` inspects, as an app makes it.
  static func store(inspectedBy live: LiveInspection<[Int]>) -> Store<[Int]> {
    Store(reducer: live.reducer(reducer), state: nil, middleware: [live.middleware()])
  }

  @Test func theAppStreamsItsActionsAndTheirStatesAsTheRecordingFormat() async throws {
    let inspector = try Inspector()
    let live = try LiveInspection<[Int]>(url: inspector.url, registry: Self.registry)
    let store = Self.store(inspectedBy: live)
    for value in 1...3 { store.dispatch(Step.add(value)) }
    live.flush()
    #expect(await eventually { inspector.lines.count >= 5 })
    let recording = Recording(data: Data(inspector.lines.joined(separator: "\n").utf8))
    #expect(recording.header?.stateType == String(reflecting: [Int].self))
    #expect(recording.entries.count == 4)
    let report = SessionReport(recording: recording)
    #expect(report.state(afterStep: 4)?.state == .array([.integer(1), .integer(2), .integer(3)]))
    live.close()
  }

  // T3 (Docs/ConcurrencyModel.md), end to end.
  @Test func thePageJumpsTheStorePausesItsActionsAndResumes() async throws {
    let inspector = try Inspector()
    let live = try LiveInspection<[Int]>(url: inspector.url, registry: Self.registry)
    let store = Self.store(inspectedBy: live)
    for value in 1...3 { store.dispatch(Step.add(value)) }
    live.flush()
    inspector.send(#"{"command":"jump","index":1}"#)
    #expect(await eventually { store.state == [1] && live.isPaused })
    store.dispatch(Step.add(4))
    inspector.send(
      #"{"command":"dispatch","type":"\#(String(reflecting: Step.self))","payload":{"add":{"_0":5}}}"#
    )
    #expect(await eventually { inspector.lines.contains { $0.contains(#""waiting":2"#) } })
    #expect(store.state == [1])
    inspector.send(#"{"command":"resume"}"#)
    #expect(await eventually { store.state == [1, 2, 3, 4, 5] && !live.isPaused })
    live.flush()
    inspector.send(#"{"command":"skip","index":2}"#)
    #expect(await eventually { store.state == [1, 3, 4, 5] })
    #expect(await eventually { inspector.lines.contains { $0.hasPrefix(#"{"rewrite""#) } })
    inspector.send(#"{"command":"dispatch","type":"Unknown.Action","payload":{}}"#)
    #expect(
      await eventually {
        inspector.lines.contains {
          $0.contains("Unknown.Action is not in the app's ActionRegistry")
        }
      })
    live.close()
  }

  @Test func theLogShowsThePagesCommandsAsThePageNumbersThemAndAHeldActionOnceWhenReduced()
    async throws
  {
    let inspector = try Inspector()
    let live = try LiveInspection<[Int]>(url: inspector.url, registry: Self.registry)
    let log = Locked<[String]>([])
    let store = Store(
      reducer: live.reducer(Self.reducer), state: nil,
      middleware: [
        createLoggingMiddleware(to: .closure { line in log.withLock { $0.append(line) } }),
        live.middleware(),
      ])
    for value in 1...3 { store.dispatch(Step.add(value)) }
    live.flush()
    // The recording's index 1 is the page's #2 (index 0 is the store's initial action).
    inspector.send(#"{"command":"jump","index":1}"#)
    #expect(await eventually { store.state == [1] && live.isPaused })
    store.dispatch(Step.add(4))
    #expect(await eventually { inspector.lines.contains { $0.contains(#""waiting":1"#) } })
    inspector.send(#"{"command":"resume"}"#)
    #expect(await eventually { store.state == [1, 2, 3, 4] && !live.isPaused })
    let lines = log.withLock { $0 }
    #expect(lines.contains { $0.hasPrefix("▸ live page: jump to #2 ") }, "\(lines)")
    #expect(lines.contains { $0.hasPrefix("▸ live page: resume ") }, "\(lines)")
    let held = lines.filter { $0.contains("add(4)") }
    #expect(held.count == 1, "the held action is logged \(held.count) times: \(held)")
    #expect(held.first?.contains("(no change)") == false, "\(held)")
    live.close()
  }

  @Test func aJumpWritesThePendingPresentFirstAndNeverPersistsThePastOrAHeldAction()
    async throws
  {
    let folder = try TemporaryFolder()
    let persistence = StatePersistence<[Int], [Int]>(
      file: folder.url.appendingPathComponent("items.json"), debounce: .seconds(3_600)
    ) { $0 }
    let inspector = try Inspector()
    let live = try LiveInspection<[Int]>(url: inspector.url, registry: Self.registry)
    let store = Store(
      reducer: live.reducer(Self.reducer), state: nil,
      middleware: [persistence.middleware(), live.middleware()])
    for value in 1...3 { store.dispatch(Step.add(value)) }
    live.flush()
    inspector.send(#"{"command":"jump","index":1}"#)
    #expect(await eventually { store.state == [1] && live.isPaused })
    // The present, pending in the debounce, was written before the jump replaced it.
    #expect(try persistence.restore().get() == [1, 2, 3])
    store.dispatch(Step.add(4))
    #expect(await eventually { inspector.lines.contains { $0.contains(#""waiting":1"#) } })
    await persistence.flush()
    #expect(try persistence.restore().get() == [1, 2, 3], "the past state was saved")
    inspector.send(#"{"command":"resume"}"#)
    #expect(await eventually { store.state == [1, 2, 3, 4] && !live.isPaused })
    await persistence.flush()
    #expect(try persistence.restore().get() == [1, 2, 3, 4])
    live.close()
  }

  /// Issue 38.3: while the page locks the app, the app's own actions are dropped and counted,
  /// the page's dispatches are taken; once unlocked, the app's actions are taken again.
  @Test func aLockedAppDropsItsOwnActionsAndTakesThePages() async throws {
    let inspector = try Inspector()
    let live = try LiveInspection<[Int]>(url: inspector.url, registry: Self.registry)
    let store = Self.store(inspectedBy: live)
    store.dispatch(Step.add(1))
    live.flush()
    func lastStatus() -> String? { inspector.lines.last { $0.hasPrefix(#"{"status""#) } }
    inspector.send(#"{"command":"lock","locked":true}"#)
    #expect(await eventually { lastStatus()?.contains(#""locked":true"#) == true })
    store.dispatch(Step.add(2))
    #expect(store.state == [1], "the locked app took its own action")
    inspector.send(
      #"{"command":"dispatch","type":"\#(String(reflecting: Step.self))","payload":{"add":{"_0":3}}}"#
    )
    #expect(await eventually { store.state == [1, 3] })
    #expect(await eventually { lastStatus()?.contains(#""droppedWhileLocked":1"#) == true })
    inspector.send(#"{"command":"lock","locked":false}"#)
    #expect(await eventually { lastStatus()?.contains(#""locked":false"#) == true })
    store.dispatch(Step.add(4))
    #expect(store.state == [1, 3, 4])
    live.close()
  }

  /// Issue 38.3: commit makes the present state the base, forgetting the actions before it;
  /// revert returns the store to the base, forgetting the actions after it. Each tells the
  /// inspector the base, and neither is taken while the page has the store in the past.
  @Test func commitMakesThePresentTheBaseAndRevertReturnsToIt() async throws {
    let inspector = try Inspector()
    let live = try LiveInspection<[Int]>(url: inspector.url, registry: Self.registry)
    let store = Self.store(inspectedBy: live)
    for value in 1...2 { store.dispatch(Step.add(value)) }
    live.flush()
    inspector.send(#"{"command":"commit"}"#)
    #expect(await eventually { inspector.lines.contains(#"{"commit":{"state":[1,2]}}"#) })
    for value in 3...4 { store.dispatch(Step.add(value)) }
    live.flush()
    // The actions before the commit are gone: a jump to one is refused.
    inspector.send(#"{"command":"jump","index":1}"#)
    #expect(
      await eventually { inspector.lines.contains { $0.contains("no longer holds action 1") } })
    inspector.send(#"{"command":"revert"}"#)
    #expect(await eventually { store.state == [1, 2] })
    #expect(await eventually { inspector.lines.filter { $0.hasPrefix(#"{"commit""#) }.count == 2 })
    store.dispatch(Step.add(5))
    #expect(store.state == [1, 2, 5])
    live.flush()
    inspector.send(#"{"command":"jump","index":5}"#)
    #expect(await eventually { store.state == [1, 2, 5] && live.isPaused })
    inspector.send(#"{"command":"revert"}"#)
    #expect(await eventually { inspector.lines.contains { $0.contains("resume the app first") } })
    inspector.send(#"{"command":"resume"}"#)
    #expect(await eventually { !live.isPaused })
    live.close()
  }

  @Test func aBurstSendsTheFirstStateAndTheLastAndOmitsTheStatesBetween() async throws {
    let inspector = try Inspector()
    // No state is due again within the test: only the store's first state is taken as it is
    // dispatched, and the burst's last state is read from the store once it is quiet.
    let live = try LiveInspection<[Int]>(
      url: inspector.url, registry: Self.registry, stateInterval: .seconds(3_600))
    let store = Self.store(inspectedBy: live)
    for value in 1...5 { store.dispatch(Step.add(value)) }
    live.flush()
    #expect(await eventually { inspector.lines.count >= 7 })
    let recording = Recording(data: Data(inspector.lines.joined(separator: "\n").utf8))
    let states = recording.entries.map(\.state)
    #expect(states.count == 6)
    guard states.count == 6 else { return }
    #expect(states[0] == .snapshot(.array([])))
    #expect(states[1..<5].allSatisfy { $0 == .omitted })
    var lastIsChanges = false
    if case .changes = states[5] { lastIsChanges = true }
    #expect(lastIsChanges, "the last state of the burst was not sent: \(states[5])")
    let report = SessionReport(recording: recording)
    #expect(report.state(afterStep: 6)?.state == .array((1...5).map { .integer(Int64($0)) }))
    // The page asks for a state that was not sent: the app computes it from the actions it holds.
    inspector.send(#"{"command":"state","index":2}"#)
    #expect(await eventually { inspector.lines.contains { $0.hasPrefix(#"{"stateAfter""#) } })
    let line = try #require(inspector.lines.first { $0.hasPrefix(#"{"stateAfter""#) })
    #expect(
      try JSONValue.parse(Data(line.utf8))
        == .object([
          "stateAfter": .object([
            "index": .integer(2), "state": .array([1, 2].map { .integer($0) }),
          ])
        ]))
    inspector.send(#"{"command":"state","index":99}"#)
    #expect(
      await eventually {
        inspector.lines.contains { $0.contains("the app no longer holds action 99") }
      })
    live.close()
  }

  @Test func aStateIntervalOfZeroSendsEveryState() async throws {
    let inspector = try Inspector()
    let live = try LiveInspection<[Int]>(
      url: inspector.url, registry: Self.registry, stateInterval: .zero)
    let store = Self.store(inspectedBy: live)
    for value in 1...5 { store.dispatch(Step.add(value)) }
    live.flush()
    #expect(await eventually { inspector.lines.count >= 7 })
    let recording = Recording(data: Data(inspector.lines.joined(separator: "\n").utf8))
    let report = SessionReport(recording: recording)
    #expect(recording.entries.count == 6)
    for step in 1...6 {
      #expect(
        report.state(afterStep: step)?.state == .array((1..<step).map { .integer(Int64($0)) }))
    }
    live.close()
  }

  @Test func theAppConnectsAgainWhenTheInspectorComesBackAndKeepsItsHistory() async throws {
    let first = try Inspector()
    let live = try LiveInspection<[Int]>(
      url: first.url, registry: Self.registry, stateInterval: .zero,
      reconnectInterval: .milliseconds(20))
    let store = Self.store(inspectedBy: live)
    store.dispatch(Step.add(1))
    live.flush()
    #expect(await eventually { first.lines.count >= 3 })
    first.stop()
    // Dispatched while no inspector listens: sent nowhere, kept in the app's history.
    store.dispatch(Step.add(2))
    let second = try Inspector(port: first.port)
    // Connected again: the stream starts over with its header.
    #expect(await eventually { second.lines.first?.contains(RecordingFormat.name) == true })
    store.dispatch(Step.add(3))
    live.flush()
    #expect(await eventually { second.lines.count >= 5 })
    let recording = Recording(data: Data(second.lines.joined(separator: "\n").utf8))
    #expect(recording.header?.stateType == String(reflecting: [Int].self))
    // Issue 38.3: the app sends the actions it holds first, the one dispatched while no
    // inspector listened included, their states computed again: the inspector misses nothing
    // the app keeps. The first state is whole.
    #expect(recording.entries.map(\.index) == [0, 1, 2, 3])
    #expect(recording.entries.first?.state == .snapshot(.array([])))
    let report = SessionReport(recording: recording)
    #expect(report.state(afterStep: 3)?.state == .array([1, 2].map { .integer($0) }))
    #expect(report.state(afterStep: 4)?.state == .array([1, 2, 3].map { .integer($0) }))
    // The page can move the app to an action sent before the inspector went away.
    second.send(#"{"command":"jump","index":1}"#)
    #expect(await eventually { store.state == [1] && live.isPaused })
    second.send(#"{"command":"resume"}"#)
    #expect(await eventually { store.state == [1, 2, 3] && !live.isPaused })
    live.close()
  }

  @Test func whileTheInspectorIsAwayTheAppKeepsItsHistoryAndEncodesNothing() async throws {
    let first = try Inspector()
    var registry = Self.registry
    registry.register(Counted.self)
    let live = try LiveInspection<[Int]>(
      url: first.url, registry: registry, stateInterval: .zero,
      reconnectInterval: .milliseconds(20))
    let store = Self.store(inspectedBy: live)
    store.dispatch(Counted(1))
    live.flush()
    #expect(Counted.encodings.withLock { $0 } == 1)
    #expect(live.isConnected)
    first.stop()
    #expect(await eventually { !live.isConnected })
    for value in 2...101 { store.dispatch(Counted(value)) }
    store.dispatch(Step.add(7))
    live.flush()
    #expect(Counted.encodings.withLock { $0 } == 1)
    let second = try Inspector(port: first.port)
    #expect(await eventually { live.isConnected })
    store.dispatch(Counted(102))
    live.flush()
    #expect(await eventually { second.lines.contains { $0.contains(#""index":103"#) } })
    // On connecting, the app sends the actions it holds once each (Counted 1 to 101), then the
    // new one: nothing was encoded while the inspector was away.
    #expect(Counted.encodings.withLock { $0 } == 1 + 101 + 1)
    // The actions dispatched while it was away are in the history the page moves through.
    second.send(#"{"command":"jump","index":102}"#)
    #expect(await eventually { store.state == [7] && live.isPaused })
    live.close()
    #expect(!live.isConnected)
  }

  /// A million integers that count how often a change had to copy them because something else
  /// still held them; their JSON is a summary, so that encoding stays cheap.
  struct Million: Sendable, Encodable {
    /// Changed only through `append`, and only while no other state shares it.
    final class Storage: @unchecked Sendable {
      var values: [Int]
      init(_ values: [Int]) { self.values = values }
    }
    static let copies = Locked(0)
    private var storage = Storage(Array(repeating: 0, count: 1_000_000))

    var count: Int { storage.values.count }

    mutating func append(_ value: Int) {
      if !isKnownUniquelyReferenced(&storage) {
        storage = Storage(storage.values)
        Self.copies.withLock { $0 += 1 }
      }
      storage.values.append(value)
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(["count": count, "last": storage.values.last ?? -1])
    }
  }

  @Test func aMillionElementStateIsCopiedOnlyForAStateTakenNotOnEveryDispatch() async throws {
    // The reducer wrapper hands the store's only reference on: no change copies.
    let standIn = try Inspector()
    let wrapping = try LiveInspection<Million>(url: standIn.url, registry: Self.registry)
    let wrapped = Store<Million>(reducer: wrapping.reducer(appendingToMillion), state: Million())
    for value in 1...10 { wrapped.dispatch(Step.add(value)) }
    #expect(Million.copies.withLock { $0 } == 0)
    wrapping.close()
    standIn.stop()
    let inspector = try Inspector()
    // No state is due again within the test, however loaded the machine: the store's first state
    // is taken as it is dispatched, and the burst's last one once the store is quiet.
    let live = try LiveInspection<Million>(
      url: inspector.url, registry: Self.registry, stateInterval: .seconds(3_600))
    let store = Store<Million>(
      reducer: live.reducer(appendingToMillion), state: Million(), middleware: [live.middleware()])
    // A burst from a background task.
    let dispatches = 200
    await Task.detached {
      for value in 1...dispatches { store.dispatch(Step.add(value)) }
    }.value
    live.flush()
    #expect(await eventually { inspector.lines.count >= dispatches + 1 })
    let recording = Recording(data: Data(inspector.lines.joined(separator: "\n").utf8))
    #expect(recording.entries.map(\.index) == Array(0..<dispatches))
    let sent = recording.entries.filter {
      switch $0.state {
      case .snapshot, .changes: true
      default: false
      }
    }
    #expect(sent.map(\.index) == [0, dispatches - 1])
    // The state before the first action, which the history keeps to reduce again from, and the
    // first state taken, held until it is encoded, each make one change copy; every other
    // change is in place.
    #expect(Million.copies.withLock { $0 } <= 2)
    #expect(store.state.count == 1_000_000 + dispatches)
    let report = SessionReport(recording: recording)
    #expect(
      report.state(afterStep: dispatches)?.state
        == .object([
          "count": .integer(1_000_000 + Int64(dispatches)), "last": .integer(Int64(dispatches)),
        ]))
    // A jump reduces the held actions again from the first state: it copies it once, and once
    // after each checkpoint it keeps (every 100 actions).
    Million.copies.withLock { $0 = 0 }
    inspector.send(#"{"command":"jump","index":\#(dispatches - 1)}"#)
    #expect(await eventually { live.isPaused })
    #expect(store.state.count == 1_000_000 + dispatches)
    #expect(Million.copies.withLock { $0 } <= 1 + dispatches / 100 + 1)
    live.close()
  }

  // T2 (Docs/ConcurrencyModel.md), with several dispatching threads.
  @Test func statesSentWhileThreadsDispatchAreTheStatesAfterTheirActions() async throws {
    let inspector = try Inspector()
    // A short interval: many states are taken as actions are dispatched, and others are read by
    // the writer once the store is quiet.
    let live = try LiveInspection<[Int]>(
      url: inspector.url, registry: Self.registry, stateInterval: .milliseconds(1))
    let store = Self.store(inspectedBy: live)
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<4 {
        group.addTask {
          for step in 0..<250 {
            store.dispatch(Step.add(task * 1_000 + step))
            // A flush makes the writer read the store's state for its newest action as soon
            // as no dispatch is under way, while the other tasks go on dispatching.
            if step % 50 == 49 { live.flush() }
          }
        }
      }
    }
    live.flush()
    #expect(await eventually { inspector.lines.count >= 1_002 })
    let recording = Recording(data: Data(inspector.lines.joined(separator: "\n").utf8))
    #expect(recording.entries.count == 1_001)
    let report = SessionReport(recording: recording)
    var expected: [JSONValue] = []
    var checked = 0
    var wrong: [Int] = []
    for (offset, entry) in recording.entries.enumerated() {
      if case .object(let payload)? = entry.payload, case .object(let add)? = payload["add"],
        let value = add["_0"]
      {
        expected.append(value)
      }
      guard let (state, known) = report.state(afterStep: offset + 1), known == offset + 1 else {
        continue
      }
      checked += 1
      if state != .array(expected) { wrong.append(offset + 1) }
    }
    #expect(wrong.isEmpty, "the states after steps \(wrong.prefix(10)) are not theirs")
    #expect(checked > 4, "only \(checked) states were sent")
    live.close()
  }

  @Test func aClosedConnectionKeepsItsDescriptorUntilNoThreadCanUseIt() throws {
    let inspector = try Inspector()
    var socket: LiveSocket? = try LiveSocket.connect(
      host: "127.0.0.1", port: inspector.port, token: "0123456789abcdef0123456789abcdef")
    socket?.close()
    // Released at close, the number could go to the next file the app opens while the reading
    // or the sending thread is about to use it: they would read the app's file, or write to it.
    let descriptor = try #require(socket?.descriptor)
    #expect(fcntl(descriptor, F_GETFD) != -1)
    var lines: [String] = []
    socket?.readLines { lines.append(String(decoding: $0, as: UTF8.self)) }
    #expect(lines.isEmpty)
    #expect(throws: LiveSocket.Failure.self) { try socket?.send(Array("x\n".utf8)) }
    socket = nil
  }

  /// An action of 256 KiB, to fill the socket's buffers.
  struct Blob: Action, Codable, Equatable {
    let text: String
  }

  /// A live inspection whose inspector took the handshake and then stopped reading, and 16 MiB
  /// dispatched: more than the socket's buffers hold, so the writer is blocked in a send.
  static func stalledInspection() throws -> (
    SilentInspector, LiveInspection<[Int]>, Store<[Int]>
  ) {
    let inspector = try SilentInspector(readsLines: false)
    inspector.answer()
    var registry = Self.registry
    registry.register(Blob.self)
    let live = try LiveInspection<[Int]>(url: inspector.url, registry: registry)
    let store = Self.store(inspectedBy: live)
    let text = String(repeating: "x", count: 256 << 10)
    for _ in 0..<64 { store.dispatch(Blob(text: text)) }
    return (inspector, live, store)
  }

  @Test func commandsFromAnInspectorThatDoesNotReadGetBoundedRepliesAndTheRestAreCounted()
    async throws
  {
    let (inspector, live, store) = try Self.stalledInspection()
    defer { inspector.stop() }
    #expect(await eventually { live.core.withLock { ($0.history.lastIndex ?? -1) >= 2 } })
    // The writer is blocked in a send: every reply waits in the buffer. Status lines, errors,
    // computed states and the states after skips, 40,000 of them.
    for round in 0..<10_000 {
      live.receive(ArraySlice(#"{"command":"lock","locked":\#(round % 2 == 0)}"#.utf8))
      live.receive(ArraySlice(#"{"command":"no-such-command"}"#.utf8))
      live.receive(ArraySlice(#"{"command":"state","index":1}"#.utf8))
      live.receive(ArraySlice(#"{"command":"skip","index":2}"#.utf8))
    }
    // The app's own actions may wait too (the blobs, if the writer had not taken them yet):
    // they have their own limit.
    let (pending, withStates, dropped) = live.stream.buffer.withLock { buffer in
      let replies = buffer.items.filter {
        if case .action = $0 { false } else { true }
      }
      let jobs = replies.filter {
        if case .job = $0 { true } else { false }
      }
      return (replies.count, jobs.count, buffer.droppedReplies)
    }
    #expect(pending <= StateStream<[Int]>.maximumPendingReplies, "\(pending) lines wait")
    #expect(withStates <= RecordingLimits().maximumPendingStates, "\(withStates) states wait")
    #expect(dropped > 0)
    store.dispatch(Step.add(1))
    live.close()
  }

  @Test func actionsHeldWhileAStalledPageHasTheAppPausedAreBoundedAndCounted() async throws {
    let (inspector, live, store) = try Self.stalledInspection()
    defer { inspector.stop() }
    // The history is kept on the writer's thread, which may not have reached action 1 yet.
    #expect(await eventually { live.core.withLock { ($0.history.lastIndex ?? -1) >= 1 } })
    live.receive(ArraySlice(#"{"command":"jump","index":1}"#.utf8))
    #expect(live.isPaused)
    // Each held action would send the page a status line, to a page that does not read.
    for value in 0..<30_000 { store.dispatch(Step.add(value)) }
    let (waiting, dropped) = live.core.withLock { ($0.waiting.count, $0.droppedWhilePaused) }
    #expect(waiting == LiveInspection<[Int]>.maximumWaiting)
    #expect(dropped == 30_000 - LiveInspection<[Int]>.maximumWaiting)
    // Not counting the blobs, if the writer had not taken them yet: actions have their own limit.
    let pending = live.stream.buffer.withLock { buffer in
      buffer.items.filter {
        if case .action = $0 { false } else { true }
      }.count
    }
    #expect(pending <= StateStream<[Int]>.maximumPendingReplies, "\(pending) lines wait")
    live.close()
  }

  @Test func closeReturnsAtOnceWhenTheInspectorStopsReading() async throws {
    let (inspector, live, store) = try Self.stalledInspection()
    defer { inspector.stop() }
    let closed = await onItsOwnThread { () -> Bool in
      live.close()
      return true
    }
    #expect(closed == true, "close() did not return within the test's patience")
    #expect(!live.isConnected)
    store.dispatch(Step.add(1))
    #expect(store.state == [1])
  }

  /// An app that flushes at exit must not hang on an inspector that stopped reading: `flush`
  /// gives up at its limit and says so, and the store goes on.
  @Test func flushGivesUpAtItsLimitWhenTheInspectorStopsReading() async throws {
    let (inspector, live, store) = try Self.stalledInspection()
    defer { inspector.stop() }
    let flushed = await onItsOwnThread { live.flush(waitingAtMost: .milliseconds(50)) }
    #expect(flushed == false, "flush() said everything was sent, or did not return")
    store.dispatch(Step.add(1))
    #expect(store.state == [1])
    live.close()
  }

  @Test func fromEnvironmentReturnsAtOnceWhenTheInspectorDoesNotAnswerAndStreamsOnceItDoes()
    async throws
  {
    let inspector = try SilentInspector()
    defer { inspector.stop() }
    let environment = ["STATECRAFT_INSPECTOR": inspector.url.absoluteString]
    let created = await onItsOwnThread {
      LiveInspection<[Int]>.fromEnvironment(
        environment, registry: Self.registry, stateInterval: .zero,
        reconnectInterval: .milliseconds(50))
    }
    let returned = try #require(
      created, "fromEnvironment did not return within the test's patience")
    let live = try #require(returned, "fromEnvironment found no inspector's address")
    #expect(!live.isConnected)
    let store = Self.store(inspectedBy: live)
    store.dispatch(Step.add(1))
    inspector.answer()
    // Connected: the stream starts with its header, then the actions the app holds, the first
    // with its state whole, then the next one relative to them.
    #expect(await inspector.line { $0.contains(RecordingFormat.name) } != nil)
    let held = await inspector.line { $0.contains(#""index":1"#) }
    let first = try JSONValue.parse(Data(try #require(held).utf8))
    #expect(
      first.objectValue?["changes"]
        == .array([.array([.integer(0), .array([.integer(0)]), .integer(1)])]))
    store.dispatch(Step.add(2))
    let line = await inspector.line { $0.contains(#""index":2"#) }
    let object = try JSONValue.parse(Data(try #require(line).utf8))
    #expect(object.objectValue?["changes"] != nil, "relative to the actions sent first")
    live.close()
  }

  @Test func anInspectorThatRefusesTheTokenIsAnErrorThatSaysSo() throws {
    let inspector = try Inspector(status: "403 Forbidden")
    #expect {
      _ = try LiveInspection<[Int]>(url: inspector.url, registry: Self.registry)
    } throws: { error in
      "\(error)".contains("refused the token")
    }
  }

  @Test func withoutTheVariableThereIsNoLiveInspection() {
    // The test process does not set STATECRAFT_INSPECTOR.
    #expect(LiveInspection<[Int]>.fromEnvironment(registry: Self.registry) == nil)
  }
}

/// Appends in place: the store hands over its only reference, and a function declared at file
/// scope with a `consuming` parameter keeps none.
@Sendable func appendingToMillion(
  action: any Action, state: consuming LiveInspectionTests.Million?
) -> LiveInspectionTests.Million {
  var state = (consume state)!
  if case .add(let value) = action as? LiveInspectionTests.Step { state.append(value) }
  return state
}
