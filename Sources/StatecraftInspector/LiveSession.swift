import Dispatch
import Statecraft
import StatecraftPrimitives
import StatecraftTools

// The live inspector's session: the pages it tells and the app's lines it takes. How a line
// becomes the page's steps is in LiveSession+Model.swift.

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

  let model: Locked<Model>
  private let clients = Locked<[ObjectIdentifier: Client]>([:])
  private let app = Locked<(@Sendable ([UInt8]) -> Bool)?>(nil)

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

  static func event(_ name: String, _ json: JSONValue) -> String {
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

  /// The app connected: a new session starts, and commands go to `send`; `false`, and nothing
  /// changes, while another app is connected: one app per session.
  package func appConnected(send: @escaping @Sendable ([UInt8]) -> Bool) -> Bool {
    let isFirst = app.withLock { app -> Bool in
      guard app == nil else { return false }
      app = send
      return true
    }
    guard isFirst else { return false }
    model.withLock { model in
      model = Model(limits: model.limits)
      model.status["connected"] = .bool(true)
    }
    for event in resetEvents() { broadcast(event) }
    return true
  }

  /// The app that ``appConnected(send:)`` accepted went away.
  package func appDisconnected() {
    app.withLock { $0 = nil }
    let status = model.withLock { model -> JSONValue in
      model.status["connected"] = .bool(false)
      return .object(model.status)
    }
    broadcast(Self.event("status", status))
  }

  /// Shows `message` on the pages as a problem of the session.
  package func report(problem message: String) {
    broadcast(Self.event("problem", .object(["error": .string(message)])))
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
        } else if case .object(let commit)? = object["commit"] {
          // The app committed or reverted: its steps start again from this state.
          if case .snapshot(let state)? = try? RecordedState(line: commit) {
            Self.start(from: state, in: &model)
            needsReset = true
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

  /// The steps and bytes kept: what a page that connects now receives.
  package var kept: (steps: Int, bytes: Int, firstStep: Int) {
    model.withLock { ($0.actions.count, $0.bytes, $0.firstStep) }
  }
}
