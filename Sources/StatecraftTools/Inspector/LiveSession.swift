import Dispatch
import Statecraft

/// What the live inspector knows of the connected app's session, in the shape the page reads,
/// and the pages it tells: the app's lines come in, page events go out.
///
/// `inspect --live` holds one; every number in a line is the app's to choose, so none is used in
/// arithmetic before it is checked.
///
/// Its memory is bounded whatever the session's length: it keeps the last steps (at most
/// `limits.steps`, and about `limits.bytes` of the app's lines), and the state before the first
/// of them. A page that connects late, or falls behind, gets those, numbered from the first one
/// kept; a page that was there from the start keeps what it received.
package final class LiveSession: Sendable {
  /// How much of the session is kept for pages that connect late.
  package struct Limits: Sendable {
    /// The most steps kept.
    package var steps = 10_000
    /// About the most bytes of the app's lines kept.
    package var bytes = 32 << 20

    package init(steps: Int = 10_000, bytes: Int = 32 << 20) {
      self.steps = max(1, steps)
      self.bytes = max(1, bytes)
    }
  }

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
    let limits: Limits
    var header: RecordingFormat.Header?
    var types: [String] = []
    /// What the page shows of each of `types`.
    var titles: [String] = []
    var typeIndex: [String: Int] = [:]
    var actions: [JSONValue] = []
    var patches: [JSONValue] = []
    var stepOfIndex: [Int: Int] = [:]
    /// The bytes of the app's line for each step kept, and their sum.
    var stepBytes: [Int] = []
    var bytes = 0
    /// The steps of the session no longer kept: `actions[k]` is the page's step
    /// `firstStep + k + 1`, and `initial` the state after step `firstStep`.
    var firstStep = 0
    var initial: JSONValue = .null
    var current: JSONValue = .null
    /// `[step, state]`, the step numbered in the whole session.
    var checkpoints: [JSONValue] = []
    var sinceCheckpoint = 0
    var bytesSinceCheckpoint = 0
    var status: [String: JSONValue] = ["connected": .bool(false), "pausedAt": .null]
    // What the next "steps" event carries.
    var newTypes = 0
    var newActions = 0
    var newCheckpoints = 0
  }

  private let model: Locked<Model>
  private let clients = Locked<[ObjectIdentifier: Client]>([:])
  private let app = Locked<(@Sendable ([UInt8]) -> Bool)?>(nil)

  /// A checkpoint every 1,000 steps, so that a page shows any step quickly.
  private static let checkpointInterval = 1_000
  /// A page more than this many bytes of events behind gets the whole session again instead.
  private static let maximumQueuedBytes = 32 << 20

  // MARK: Pages

  package init(limits: Limits = Limits()) {
    model = Locked(Model(limits: limits))
  }

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
        "types": .array(model.types.map(JSONValue.string)),
        "titles": .array(model.titles.map(JSONValue.string)), "actions": .array(model.actions),
        "patches": .array(model.patches), "initial": model.initial,
        "checkpoints": .array(model.checkpoints), "firstStep": .integer(Int64(model.firstStep)),
        "hasStates": .bool(model.header?.stateType != nil || model.header == nil),
        "stateType": model.header?.stateType.map(JSONValue.string) ?? .null,
        "startedAt": model.header?.startedAt.map(JSONValue.number) ?? .null,
        "problems": .array([]),
        "actionTypes": Self.offered(model.header?.actionTypes ?? []),
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
      model = Model(limits: model.limits)
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
          model = Model(limits: model.limits)
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
                "state",
                .object([
                  "step": .integer(Int64(model.firstStep + position + 1)), "state": state,
                ])))
          }
        } else if case .object(let rewrite)? = object["rewrite"] {
          Self.apply(rewrite: rewrite, to: &model)
          needsReset = true
        } else {
          do throws(RecordingLineError) {
            try Self.add(line: object, bytes: line.count, to: &model)
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
      Self.forgetOldSteps(&model)
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
        "titles": .array(model.titles[model.newTypes...].map(JSONValue.string)),
        "actions": .array(Array(model.actions[first...])),
        "patches": .array(Array(model.patches[first...])),
        "checkpoints": .array(Array(model.checkpoints[model.newCheckpoints...])),
        "startedAt": model.header?.startedAt.map(JSONValue.number) ?? .null,
        // The state before the session's first step, with the first steps.
        "initial": first == 0 && model.firstStep == 0 ? model.initial : .null,
        "hasInitial": .bool(first == 0 && model.firstStep == 0),
      ]))
  }

  /// An action line or a gap line, as a step of the page.
  private static func add(
    line object: [String: JSONValue], bytes: Int, to model: inout Model
  ) throws(RecordingLineError) {
    let recorded = try RecordedState(line: object)
    let typeName: String
    let shown: ActionNames.Shown
    var index: JSONValue = .null
    var time = model.actions.last.flatMap { action -> Double? in
      guard case .array(let parts) = action, parts.count > 1 else { return nil }
      return parts[1].doubleValue
    }
    if object["gap"] != nil {
      let gap = try RecordedGap(line: object)
      typeName = SessionReport.gapTypeName
      shown = ActionNames.Shown(
        key: typeName, title: typeName,
        label: RecordedGap.describe(from: gap.from, count: gap.count)
          + " were not sent: the app's sender fell behind")
    } else {
      guard case .string(let type)? = object["type"],
        let recordedIndex = object["index"]?.integerValue
      else { return }  // a kind of line this inspector does not know
      typeName = type
      index = .integer(Int64(recordedIndex))
      time = object["time"]?.doubleValue ?? time
      shown = ActionNames.shown(
        typeName: type, payload: object["payload"].flatMap { $0 == .null ? nil : $0 })
      model.stepOfIndex[recordedIndex] = model.actions.count
      if model.actions.isEmpty, model.firstStep == 0, let initial = object["initial"] {
        model.initial = initial
        model.current = initial
      }
    }
    if model.actions.isEmpty, model.firstStep == 0, model.initial == .null,
      case .snapshot(let state) = recorded,
      typeName == String(reflecting: StatecraftInit.self)
    {
      model.initial = state
      model.current = state
    }
    let typeIndex =
      model.typeIndex[shown.key]
      ?? {
        model.types.append(shown.key)
        model.titles.append(shown.title)
        model.typeIndex[shown.key] = model.types.count - 1
        return model.types.count - 1
      }()
    let patch = patch(for: recorded, current: &model.current)
    model.actions.append(
      .array([
        // A live step has no line in a file.
        .null, .number(time ?? 0), .integer(Int64(typeIndex)),
        shown.label.map(JSONValue.string) ?? .null,
        index,
      ]))
    model.patches.append(patch)
    model.stepBytes.append(bytes)
    model.bytes += bytes
    model.newActions += 1
    model.sinceCheckpoint += 1
    model.bytesSinceCheckpoint += bytes
    // Also after an eighth of the bytes kept, so that large steps are forgotten in small parts.
    if model.sinceCheckpoint >= checkpointInterval
      || model.bytesSinceCheckpoint >= model.limits.bytes / 8
    {
      model.checkpoints.append(
        .array([.integer(Int64(model.firstStep + model.actions.count)), model.current]))
      model.sinceCheckpoint = 0
      model.bytesSinceCheckpoint = 0
    }
  }

  /// Forgets the oldest steps once more than the limits are kept, down to about three quarters
  /// of them, at a checkpoint: its state is the state before the first step kept.
  ///
  /// - Complexity: O(*n*) for the *n* steps kept, about once every quarter of the limits.
  private static func forgetOldSteps(_ model: inout Model) {
    let limits = model.limits
    guard model.actions.count > limits.steps || model.bytes > limits.bytes else { return }
    var cut: (step: Int, state: JSONValue, checkpoints: Int, bytes: Int)?
    var droppedBytes = 0
    var counted = 0
    for (offset, checkpoint) in model.checkpoints.enumerated() {
      guard case .array(let parts) = checkpoint, parts.count == 2,
        let step = parts[0].integerValue, step > model.firstStep
      else { continue }
      let dropped = min(step - model.firstStep, model.actions.count)
      droppedBytes += model.stepBytes[counted..<dropped].reduce(0, +)
      counted = dropped
      cut = (step, parts[1], offset + 1, droppedBytes)
      if model.actions.count - dropped <= limits.steps / 4 * 3,
        model.bytes - droppedBytes <= limits.bytes / 4 * 3
      {
        break
      }
    }
    guard let cut else { return }
    let dropped = cut.step - model.firstStep
    model.actions.removeFirst(dropped)
    model.patches.removeFirst(dropped)
    model.stepBytes.removeFirst(dropped)
    model.bytes -= cut.bytes
    model.checkpoints.removeFirst(cut.checkpoints)
    model.initial = cut.state
    model.firstStep = cut.step
    model.stepOfIndex = model.stepOfIndex.compactMapValues { $0 >= dropped ? $0 - dropped : nil }
  }

  /// The app's action types as the page offers them to dispatch, `[shown, whole]`: by the name
  /// the list shows, or the whole name where two types share that name.
  private static func offered(_ names: [String]) -> JSONValue {
    .array(ActionNames.offered(names).map { .array([.string($0.shown), .string($0.whole)]) })
  }

  /// The steps and bytes kept: what a page that connects now receives.
  package var kept: (steps: Int, bytes: Int, firstStep: Int) {
    model.withLock { ($0.actions.count, $0.bytes, $0.firstStep) }
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
    // Checkpoints after the change are computed again, at the same steps, from the one before
    // it. Their steps are numbered in the whole session; positions in what is kept.
    let firstStep = model.firstStep
    var again: Set<Int> = []
    model.checkpoints.removeAll { checkpoint in
      guard case .array(let parts) = checkpoint, let step = parts.first?.integerValue else {
        return true
      }
      guard step - firstStep > start else { return false }
      again.insert(step)
      return true
    }
    var state = model.initial
    var base = 0
    if case .array(let parts)? = model.checkpoints.last, let step = parts.first?.integerValue {
      state = parts[1]
      base = step - firstStep
    }
    for position in base..<model.patches.count {
      if case .array(let patches) = model.patches[position] {
        for patch in patches { if let change = JSONChange(patch: patch) { state.apply(change) } }
      }
      if again.contains(firstStep + position + 1) {
        model.checkpoints.append(.array([.integer(Int64(firstStep + position + 1)), state]))
      }
    }
  }
}
