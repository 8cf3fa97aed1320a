import Dispatch
import Statecraft

/// What the live inspector knows of the connected app's session, in the shape the page reads,
/// and the pages it tells: the app's lines come in, page events go out.
///
/// `inspect --live` holds one; every number in a line is the app's to choose, so none is used in
/// arithmetic before it is checked.
package final class LiveSession: Sendable {
  /// A page's event stream: events wait here until its connection's thread writes them.
  package final class Client: Sendable {
    package let wake = DispatchSemaphore(value: 0)
    fileprivate let queue = Locked<(events: [String], bytes: Int, needsReset: Bool)>(([], 0, true))

    package init() {}

    /// The events to write, a reset first if the page fell too far behind.
    package func take(_ session: LiveSession) -> [String] {
      let (events, needsReset) = queue.withLock { queue in
        defer { queue = ([], 0, false) }
        return (queue.events, queue.needsReset)
      }
      return needsReset ? session.resetEvents() : events
    }
  }

  private struct Model {
    var header: RecordingFormat.Header?
    var types: [String] = []
    var typeIndex: [String: Int] = [:]
    var actions: [JSONValue] = []
    var patches: [JSONValue] = []
    var stepOfIndex: [Int: Int] = [:]
    var initial: JSONValue = .null
    var current: JSONValue = .null
    var checkpoints: [JSONValue] = []
    var sinceCheckpoint = 0
    var status: [String: JSONValue] = ["connected": .bool(false), "pausedAt": .null]
    // What the next "steps" event carries.
    var newTypes = 0
    var newActions = 0
    var newCheckpoints = 0
  }

  private let model = Locked(Model())
  private let clients = Locked<[ObjectIdentifier: Client]>([:])
  private let app = Locked<(@Sendable ([UInt8]) -> Bool)?>(nil)

  /// A checkpoint every 1,000 steps, so that a page shows any step quickly.
  private static let checkpointInterval = 1_000
  /// A page more than this many bytes of events behind gets the whole session again instead.
  private static let maximumQueuedBytes = 32 << 20

  // MARK: Pages

  package init() {}

  package func add(_ client: Client) {
    clients.withLock { $0[ObjectIdentifier(client)] = client }
    client.wake.signal()
  }

  package func remove(_ client: Client) {
    _ = clients.withLock { $0.removeValue(forKey: ObjectIdentifier(client)) }
  }

  private func broadcast(_ event: String) {
    for client in clients.withLock({ Array($0.values) }) {
      client.queue.withLock { queue in
        guard !queue.needsReset else { return }
        if queue.bytes + event.utf8.count > Self.maximumQueuedBytes {
          queue = ([], 0, true)
        } else {
          queue.events.append(event)
          queue.bytes += event.utf8.count
        }
      }
      client.wake.signal()
    }
  }

  private static func event(_ name: String, _ json: JSONValue) -> String {
    // JSON text holds no line break, so it is one `data:` line.
    "event: \(name)\ndata: \(json.jsonText(scriptSafe: true))\n\n"
  }

  /// What a page that connects, or fell behind, receives: the whole session and the status.
  package func resetEvents() -> [String] {
    let (data, status) = model.withLock { model -> (JSONValue, JSONValue) in
      let data: JSONValue = .object([
        "types": .array(model.types.map(JSONValue.string)), "actions": .array(model.actions),
        "patches": .array(model.patches), "initial": model.initial,
        "checkpoints": .array(model.checkpoints),
        "hasStates": .bool(model.header?.stateType != nil || model.header == nil),
        "stateType": model.header?.stateType.map(JSONValue.string) ?? .null,
        "startedAt": model.header?.startedAt.map(JSONValue.number) ?? .null,
        "problems": .array([]),
      ])
      return (data, .object(model.status))
    }
    return [Self.event("reset", data), Self.event("status", status)]
  }

  // MARK: The app

  /// The app connected: a new session starts, and commands go to `send`.
  package func appConnected(send: @escaping @Sendable ([UInt8]) -> Bool) {
    app.withLock { $0 = send }
    model.withLock { model in
      model = Model()
      model.status["connected"] = .bool(true)
    }
    for event in resetEvents() { broadcast(event) }
  }

  package func appDisconnected() {
    app.withLock { $0 = nil }
    let status = model.withLock { model -> JSONValue in
      model.status["connected"] = .bool(false)
      return .object(model.status)
    }
    broadcast(Self.event("status", status))
  }

  /// Sends a page's command to the app; `false` when no app is connected.
  package func send(command: JSONValue) -> Bool {
    guard let send = app.withLock({ $0 }) else { return false }
    return send(Array((command.jsonText() + "\n").utf8))
  }

  /// Takes lines the app sent, then tells the pages what changed.
  package func receive(lines: [ArraySlice<UInt8>]) {
    var events: [String] = []
    var needsReset = false
    model.withLock { model in
      for line in lines where !line.isEmpty {
        guard case .object(let object)? = try? JSONValue.parse(line) else { continue }
        if let header = RecordingFormat.Header(json: .object(object)) {
          let status = model.status
          model = Model()
          model.header = header
          model.status = status
          needsReset = true
        } else if case .object(let status)? = object["status"] {
          model.status.merge(status) { $1 }
          events.append(Self.event("status", .object(model.status)))
        } else if case .string(let message)? = object["error"] {
          events.append(Self.event("problem", .object(["error": .string(message)])))
        } else if case .object(let stateAfter)? = object["stateAfter"] {
          // A state the app computed again for a step whose state it did not send.
          if let index = stateAfter["index"]?.integerValue, let position = model.stepOfIndex[index],
            case .snapshot(let state)? = try? RecordedState(line: stateAfter)
          {
            events.append(
              Self.event(
                "state", .object(["step": .integer(Int64(position + 1)), "state": state])))
          }
        } else if case .object(let rewrite)? = object["rewrite"] {
          Self.apply(rewrite: rewrite, to: &model)
          needsReset = true
        } else {
          do throws(RecordingLineError) {
            try Self.add(line: object, to: &model)
          } catch {
            events.append(
              Self.event(
                "problem",
                .object(["error": .string("the app sent a line that cannot be shown: \(error)")])))
          }
        }
      }
      if !needsReset, model.newActions > 0 {
        events.insert(Self.stepsEvent(&model), at: 0)
      }
      model.newActions = 0
      model.newTypes = model.types.count
      model.newCheckpoints = model.checkpoints.count
    }
    if needsReset { events = resetEvents() + events }
    for event in events { broadcast(event) }
  }

  private static func stepsEvent(_ model: inout Model) -> String {
    let first = model.actions.count - model.newActions
    return event(
      "steps",
      .object([
        "types": .array(model.types[model.newTypes...].map(JSONValue.string)),
        "actions": .array(Array(model.actions[first...])),
        "patches": .array(Array(model.patches[first...])),
        "checkpoints": .array(Array(model.checkpoints[model.newCheckpoints...])),
        "startedAt": model.header?.startedAt.map(JSONValue.number) ?? .null,
        // The state before the first step, with the first steps.
        "initial": first == 0 ? model.initial : .null, "hasInitial": .bool(first == 0),
      ]))
  }

  /// An action line or a gap line, as a step of the page.
  private static func add(
    line object: [String: JSONValue], to model: inout Model
  ) throws(RecordingLineError) {
    let recorded = try RecordedState(line: object)
    let typeName: String
    let label: JSONValue
    var index: JSONValue = .null
    var time = model.actions.last.flatMap { action -> Double? in
      guard case .array(let parts) = action, parts.count > 1 else { return nil }
      return parts[1].doubleValue
    }
    if object["gap"] != nil {
      let gap = try RecordedGap(line: object)
      typeName = SessionReport.gapTypeName
      label = .string(
        RecordedGap.describe(from: gap.from, count: gap.count)
          + " were not sent: the app's sender fell behind")
    } else {
      guard case .string(let type)? = object["type"],
        let recordedIndex = object["index"]?.integerValue
      else { return }  // a kind of line this inspector does not know
      typeName = type
      index = .integer(Int64(recordedIndex))
      time = object["time"]?.doubleValue ?? time
      label =
        object["payload"].flatMap { $0 == .null ? nil : $0 }
        .map { .string(SessionReport.actionLabel(of: $0)) } ?? .null
      model.stepOfIndex[recordedIndex] = model.actions.count
      if model.actions.isEmpty, let initial = object["initial"] {
        model.initial = initial
        model.current = initial
      }
    }
    if model.actions.isEmpty, model.initial == .null, case .snapshot(let state) = recorded,
      typeName == String(reflecting: StatecraftInit.self)
    {
      model.initial = state
      model.current = state
    }
    let typeIndex =
      model.typeIndex[typeName]
      ?? {
        model.types.append(typeName)
        model.typeIndex[typeName] = model.types.count - 1
        return model.types.count - 1
      }()
    let patch = patch(for: recorded, current: &model.current)
    model.actions.append(
      .array([
        index, .number(time ?? 0), .integer(Int64(typeIndex)), label, index,
      ]))
    model.patches.append(patch)
    model.newActions += 1
    model.sinceCheckpoint += 1
    if model.sinceCheckpoint >= checkpointInterval {
      model.checkpoints.append(.array([.integer(Int64(model.actions.count)), model.current]))
      model.sinceCheckpoint = 0
    }
  }

  /// The page's patch for a line's state, applied to `current`: `"omitted"` when the app did
  /// not send it, `null` when it is not known for another reason.
  private static func patch(for recorded: RecordedState, current: inout JSONValue) -> JSONValue {
    switch recorded {
    case .changes(let changes):
      for change in changes { current.apply(change) }
      return .array(changes.map(\.patch))
    case .snapshot(let state):
      let changes = JSONChange.between(current, state)
      current = state
      return .array(changes.map(\.patch))
    case .omitted:
      return .string("omitted")
    case .none, .dropped, .failed:
      return .null
    }
  }

  /// The states after a skip: the state before the first changed action, then each later
  /// action's changes, replacing what the page held from that action on.
  private static func apply(rewrite: [String: JSONValue], to model: inout Model) {
    guard let from = rewrite["from"]?.integerValue, let start = model.stepOfIndex[from],
      case .snapshot(var current)? = try? RecordedState(line: rewrite),
      case .array(let steps)? = rewrite["steps"]
    else { return }
    for step in steps {
      guard case .object(let object) = step, let index = object["index"]?.integerValue,
        let position = model.stepOfIndex[index], let recorded = try? RecordedState(line: object)
      else { continue }
      model.patches[position] = patch(for: recorded, current: &current)
    }
    model.current = current
    // Checkpoints after the change are computed again from the one before it.
    model.checkpoints.removeAll { checkpoint in
      guard case .array(let parts) = checkpoint, let step = parts.first?.integerValue else {
        return true
      }
      return step > start
    }
    var state = model.initial
    var base = 0
    if case .array(let parts)? = model.checkpoints.last, let step = parts.first?.integerValue {
      state = parts[1]
      base = step
    }
    for position in base..<model.patches.count {
      if case .array(let patches) = model.patches[position] {
        for patch in patches { if let change = JSONChange(patch: patch) { state.apply(change) } }
      }
      if (position + 1) % checkpointInterval == 0 {
        model.checkpoints.append(.array([.integer(Int64(position + 1)), state]))
      }
    }
  }
}
