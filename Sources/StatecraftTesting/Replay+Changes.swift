import Foundation
import Statecraft
import StatecraftTools

// The replays a generated test runs: what each action changed in the state, checked step by step.

/// Replays a recording into a fresh store and checks what each action changed in the state:
/// what `swift run inspect SESSION --swift-test NAME` generates.
///
/// `expected` is the text the generated test holds: the state before the first action and the
/// changes of each step, as JSON. The actual states are encoded the same way, comparing each
/// part with the one before it first, so a long session of a large state replays in time
/// proportional to its changes.
///
/// Actions the recording holds by name only change nothing. The first step whose changes differ
/// fails the test with the step, the line, and the expected and actual changes, and the replay
/// stops there.
///
/// - Parameters:
///   - recording: The recording.
///   - reducer: The app's reducer.
///   - initialState: The state to start from, or `nil` for the state the recording starts from
///     when its store was created with one (the state must then be `Decodable`), else the
///     reducer's own.
///   - expected: The expected changes, as a generated test holds them.
///   - fileID: The file to report a failure in; defaults to the caller's.
///   - filePath: The file path to report a failure in; defaults to the caller's.
///   - line: The line to report a failure at; defaults to the caller's.
///   - column: The column to report a failure at; defaults to the caller's.
/// - Complexity: O(*n*) dispatches for *n* recorded actions, and the encoding of the parts of the
///   state each changed.
@MainActor
public func replay<State: Encodable & Sendable>(
  _ recording: Recording,
  reducer: @escaping Reducer<State>,
  initialState: State? = nil,
  expectingChanges expected: String,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) async {
  replayChanges(
    recording, initialState: initialState, expected: expected,
    makeStore: { Store(reducer: reducer, state: $0) }, tracking: .encoding(),
    at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
}

/// Replays a recording through a main-actor-isolated reducer of ReSwift's shape and checks what
/// each action changed in the state: what `inspect --swift-test` generates for an app target
/// with default main-actor isolation.
///
/// There the state's `Encodable` and `Decodable` conformances are main-actor isolated, so they
/// are found at run time, on the main actor. Behaves as the overload for a nonisolated reducer.
///
/// - Parameters:
///   - recording: The recording.
///   - reducer: The app's reducer.
///   - initialState: The state to start from, or `nil` for the state the recording starts from
///     when its store was created with one (the state must then be `Decodable`), else the
///     reducer's own.
///   - expected: The expected changes, as a generated test holds them.
///   - fileID: The file to report a failure in; defaults to the caller's.
///   - filePath: The file path to report a failure in; defaults to the caller's.
///   - line: The line to report a failure at; defaults to the caller's.
///   - column: The column to report a failure at; defaults to the caller's.
/// - Complexity: O(*n*) dispatches for *n* recorded actions, and the encoding of the parts of the
///   state each changed.
@MainActor
public func replay<State: Sendable>(
  _ recording: Recording,
  reducer: @escaping @MainActor (_ action: any Action, _ state: State?) -> State,
  initialState: State? = nil,
  expectingChanges expected: String,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) async {
  let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  guard let tracking = ChangeTracking<State>.encodingAtRunTime() else {
    reportFailure(
      "replay(_:reducer:expectingChanges:) encodes each state, and \(State.self) is not "
        + "Encodable. Add the conformance: struct \(State.self): Codable.", at: location)
    return
  }
  replayChanges(
    recording, initialState: initialState, expected: expected,
    makeStore: { Store(reducer: reducer, state: $0) }, tracking: tracking, at: location)
}

/// How a replay encodes each state and names what it changed.
private struct ChangeTracking<State> {
  let track: (State) throws -> [JSONChange]
  let json: () -> JSONValue

  /// A state whose `Encodable` conformance the compiler sees.
  static func encoding() -> ChangeTracking where State: Encodable {
    let box = TrackerBox<State>()
    return ChangeTracking(track: { try box.tracker.track($0) }, json: { box.tracker.json })
  }

  /// A state whose `Encodable` conformance is found at run time.
  ///
  /// On the main actor, a main-actor isolated conformance is found too. `nil` if the state is
  /// not `Encodable`.
  @MainActor
  static func encodingAtRunTime() -> ChangeTracking? {
    guard State.self is any Encodable.Type else { return nil }
    let box = TrackerBox<EncodableState>()
    return ChangeTracking(
      track: { state in
        guard let value = state as? any Encodable else { return [] }
        return try box.tracker.track(EncodableState(value: value))
      },
      json: { box.tracker.json })
  }
}

private final class TrackerBox<Tracked: Encodable> {
  var tracker = StateChangeTracker<Tracked>()
}

/// A state encoded through the conformance found at run time.
private struct EncodableState: Encodable {
  let value: any Encodable

  func encode(to encoder: any Encoder) throws {
    try value.encode(to: encoder)
  }
}

@MainActor
private func replayChanges<State: Sendable>(
  _ recording: Recording, initialState: State?, expected: String,
  makeStore: (State?) -> Store<State>, tracking: ChangeTracking<State>,
  at location: TestLocation
) {
  let log: StateChangeLog
  do {
    log = try StateChangeLog(text: expected)
  } catch {
    reportFailure("The expected changes cannot be read: \(error).", at: location)
    return
  }
  guard log.steps.count == recording.entries.count else {
    reportFailure(
      "The recording holds \(recording.entries.count) actions, and the changes of "
        + "\(log.steps.count) were expected.", at: location)
    return
  }
  // A store created with a state (or a session after a commit) does not start with its own init
  // action: the replay starts from the state the recording starts from, if it can be decoded.
  var start = initialState
  let startsFromAState = recording.entries.first?.typeName != LineReader.initTypeName
  if start == nil, startsFromAState,
    let decodable = State.self as? any Decodable.Type,
    let decoded = try? JSONDecoder().decode(decodable, from: Data(log.initial.jsonText().utf8))
      as? State
  {
    start = decoded
  }
  let store = makeStore(start)
  do {
    _ = try tracking.track(store.state)
    guard log.initial.matches(tracking.json()) else {
      let changes = JSONChange.between(log.initial, tracking.json()).map(\.sentence)
      let hint =
        startsFromAState && start == nil
        ? " The recording starts from the state its store was created with, and \(State.self) "
          + "cannot be decoded from it: make \(State.self) Decodable (Codable), or pass that "
          + "state as initialState:."
        : ""
      reportFailure(
        "The state before the first action differs from the recorded one: "
          + changes.prefix(20).joined(separator: "; ")
          + (changes.count > 20 ? "; and \(changes.count - 20) more changes" : "") + "." + hint,
        at: location)
      return
    }
    for (step, entry) in recording.entries.enumerated() {
      if log.unknown.contains(step) {
        // Not known: the next known step's changes are relative to the last state known, so the
        // state is not tracked here.
        if let action = entry.action { store.dispatch(action) }
        continue
      }
      var actual: [JSONChange] = []
      if let action = entry.action {
        store.dispatch(action)
        actual = try tracking.track(store.state)
      }
      let expected = log.steps[step]
      // A redacted recording's "<redacted>" values match whatever the replay gives there.
      guard
        actual.count != expected.count || !zip(expected, actual).allSatisfy({ $0.matches($1) })
      else { continue }
      func list(_ changes: [JSONChange]) -> String {
        changes.isEmpty ? "  (nothing)" : changes.map { "  \($0.sentence)" }.joined(separator: "\n")
      }
      if entry.action == nil, entry.payload != nil {
        reportFailure(
          """
          Step \(step + 1) (line \(entry.line), \(entry.typeName)) was not replayed: the \
          registry the test reads the recording with cannot decode \(entry.typeName), so the step \
          changed nothing where the recording expects:
          \(list(log.steps[step]))
          Register it in that registry: registry.register(\(entry.typeName).self).
          """,
          at: location)
        return
      }
      reportFailure(
        """
        Step \(step + 1) (line \(entry.line), \(entry.typeName)) changed the state differently.
        Expected:
        \(list(log.steps[step]))
        Actual:
        \(list(actual))
        """,
        at: location)
      return
    }
  } catch {
    reportFailure("A state could not be encoded as JSON: \(error).", at: location)
  }
}
