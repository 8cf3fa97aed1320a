import Foundation
import Statecraft

// How a `StateStream`'s writer turns actions and states into the lines of a recording: the
// encoder of each line, and the change trackers of a state type found at run time.

/// Makes the encoder of a state type that is `Encodable`, found at run time, so that a recorder
/// of any state records the states it can encode.
package struct StateEncoderFactory: Sendable {
  fileprivate let make: @Sendable () -> any StateEncoding

  /// The factory for `type`, or `nil` when it is not `Encodable`.
  package init?(for type: Any.Type) {
    guard let encodable = type as? any (Encodable & Sendable).Type else { return nil }
    make = Self.factory(for: encodable)
  }

  private static func factory<State: Encodable & Sendable>(
    for type: State.Type
  ) -> @Sendable () -> any StateEncoding {
    { TypedStateEncoding<State>() }
  }
}

/// Turns entries into the lines of a recording.
///
/// Payloads go through the registry, states are written as a first snapshot then changes, and
/// redaction applies to both. Lives on the writer's thread.
package struct LineEncoder {
  let registry: ActionRegistry
  private let factory: StateEncoderFactory?
  private let stateEncoder: (any StateEncoding)?
  let redacting: (@Sendable (String) -> Bool)?
  let snapshotInterval: Int
  private var statesSinceSnapshot = 0
  private var needsSnapshot = true

  init(
    registry: ActionRegistry, stateEncoder: StateEncoderFactory?,
    redacting: (@Sendable (String) -> Bool)?, snapshotInterval: Int
  ) {
    self.registry = registry
    factory = stateEncoder
    self.stateEncoder = stateEncoder.map { $0.make() }
    self.redacting = redacting
    self.snapshotInterval = snapshotInterval
  }

  /// The action's JSON, redacted, or `nil` when its type is not registered.
  package func payload(of action: any Action) -> JSONValue? {
    guard let data = registry.encode(action), var json = try? JSONValue.parse(data) else {
      return nil
    }
    if let redacting { json = json.redacted(at: "action", isSensitive: redacting) }
    return json
  }

  /// What a line says of `state`, tracked against the state written before it.
  package mutating func record(_ state: Any) -> RecordedState {
    guard let stateEncoder else { return .none }
    do {
      if needsSnapshot || statesSinceSnapshot >= snapshotInterval {
        _ = try stateEncoder.track(state)
        needsSnapshot = false
        statesSinceSnapshot = 1
        return .snapshot(redact(stateEncoder.json()))
      }
      let changes = try stateEncoder.track(state)
      statesSinceSnapshot += 1
      guard let redacting else { return .changes(changes) }
      return .changes(changes.map { $0.redacted(isSensitive: redacting) })
    } catch {
      // The tracker may hold part of the failed state: the next one is written whole.
      needsSnapshot = true
      return .failed("\(error)")
    }
  }

  /// A tracker of its own, for a sequence of states apart from the recording's: the first state
  /// it is given is written whole, the next ones as changes, redacted as the recording is.
  package func freshTracker() -> FreshTracker? {
    factory.map { FreshTracker(encoding: $0.make(), redacting: redacting) }
  }

  /// The next state is written whole: what a reader needs after the states it has were
  /// rewritten.
  package mutating func startOver() {
    needsSnapshot = true
  }

  private func redact(_ json: JSONValue) -> JSONValue {
    guard let redacting else { return json }
    return json.redacted(at: "", isSensitive: redacting)
  }

  mutating func encode(
    index: Int, time: Double, action: any Action, state: Any?, before: Any?,
    missingState: RecordedState?
  ) -> JSONValue {
    var object: [String: JSONValue] = [
      "index": .integer(Int64(index)), "time": .number(time),
      "type": .string(ActionRegistry.name(of: type(of: action))),
      "payload": payload(of: action) ?? .null,
    ]
    if let before {
      if case .snapshot(let json) = record(before) { object["initial"] = json }
    }
    if let state {
      record(state).write(into: &object)
    } else {
      missingState?.write(into: &object)
    }
    return .object(object)
  }

  mutating func encodeGap(from: Int, count: Int, state: Any?) -> JSONValue {
    var object: [String: JSONValue] = [
      "gap": .object(["from": .integer(Int64(from)), "count": .integer(Int64(count))])
    ]
    if let state { record(state).write(into: &object) }
    return .object(object)
  }
}

/// Tracks a sequence of states apart from a recording's.
package struct FreshTracker {
  fileprivate let encoding: any StateEncoding
  let redacting: (@Sendable (String) -> Bool)?
  private var isFirst = true

  fileprivate init(encoding: any StateEncoding, redacting: (@Sendable (String) -> Bool)?) {
    self.encoding = encoding
    self.redacting = redacting
  }

  /// The state whole the first time, then what changed.
  package mutating func track(_ state: Any) -> RecordedState {
    do {
      let changes = try encoding.track(state)
      if isFirst {
        isFirst = false
        let json = encoding.json()
        return .snapshot(redacting.map { json.redacted(at: "", isSensitive: $0) } ?? json)
      }
      guard let redacting else { return .changes(changes) }
      return .changes(changes.map { $0.redacted(isSensitive: redacting) })
    } catch {
      return .failed("\(error)")
    }
  }
}

private protocol StateEncoding {
  func track(_ state: Any) throws -> [JSONChange]
  func json() -> JSONValue
}

/// The `StateChangeTracker` of one state type, used on the writer's thread only.
private final class TypedStateEncoding<State: Encodable>: StateEncoding {
  private var tracker = StateChangeTracker<State>()

  func track(_ state: Any) throws -> [JSONChange] {
    guard let state = state as? State else { return [] }
    return try tracker.track(state)
  }

  func json() -> JSONValue { tracker.json }
}
