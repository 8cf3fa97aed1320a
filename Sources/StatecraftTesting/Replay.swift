import Foundation
import Statecraft
import StatecraftPrimitives
import StatecraftTools

/// Replays a recording into a fresh store and checks the state it ends in.
///
/// ```swift
/// @MainActor @Test func bugReport1234() async throws {
///   let recording = try Recording(contentsOf: reportURL, registry: appActions)
///   await replay(recording, reducer: appReducer, expecting: expectedState)
/// }
/// ```
///
/// Actions the recording holds by name only are skipped; a truncated recording replays its
/// valid prefix. A different final state fails the test with a diff.
///
/// - Parameters:
///   - recording: The recording.
///   - reducer: The app's reducer.
///   - initialState: The state to start from, or `nil` for the reducer's own.
///   - expected: The state the replay must end in.
///   - fileID: The file to report a failure in; defaults to the caller's.
///   - filePath: The file path to report a failure in; defaults to the caller's.
///   - line: The line to report a failure at; defaults to the caller's.
///   - column: The column to report a failure at; defaults to the caller's.
/// - Complexity: O(*n*) dispatches for *n* recorded actions, then one comparison of states; a
///   failing comparison adds a diff, O(*a* × *b*) for dumps of *a* and *b* lines.
@MainActor
public func replay<State: Equatable & Sendable>(
  _ recording: Recording,
  reducer: @escaping Reducer<State>,
  initialState: State? = nil,
  expecting expected: State,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) async {
  let store = Store(reducer: reducer, state: initialState)
  check(
    replaying: recording, into: store, expecting: expected,
    at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
}

/// Replays a recording into a fresh store with a reducer that changes the state in place, such
/// as one built with `combineReducers` and `scopedReducer`, and checks the state it ends in.
///
/// Behaves as the overload for a reducer of ReSwift's shape.
///
/// - Parameters:
///   - recording: The recording.
///   - reducer: The app's reducer.
///   - initialState: The state to start from.
///   - expected: The state the replay must end in.
///   - fileID: The file to report a failure in; defaults to the caller's.
///   - filePath: The file path to report a failure in; defaults to the caller's.
///   - line: The line to report a failure at; defaults to the caller's.
///   - column: The column to report a failure at; defaults to the caller's.
/// - Complexity: O(*n*) dispatches for *n* recorded actions, then one comparison of states; a
///   failing comparison adds a diff, O(*a* × *b*) for dumps of *a* and *b* lines.
@MainActor
public func replay<State: Equatable & Sendable>(
  _ recording: Recording,
  reducer: @escaping InPlaceReducer<State>,
  initialState: State,
  expecting expected: State,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) async {
  let store = Store(reducer: reducer, state: initialState)
  check(
    replaying: recording, into: store, expecting: expected,
    at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
}

/// Replays a recording into a fresh store and checks the state after each action: what
/// `swift run inspect SESSION --swift-test NAME` generates.
///
/// ```swift
/// @MainActor @Test func bugReport1234() async throws {
///   let recording = try Recording(contentsOf: reportURL, registry: appActions)
///   await replay(recording, reducer: appReducer, expectingAfterEach: expectedStates)
/// }
/// ```
///
/// Actions the recording holds by name only change nothing. The first step whose state differs
/// fails the test with the step, the line and a diff, and the replay stops there.
///
/// - Parameters:
///   - recording: The recording.
///   - reducer: The app's reducer.
///   - initialState: The state to start from, or `nil` for the reducer's own.
///   - expected: The state after each entry of the recording, in order.
///   - fileID: The file to report a failure in; defaults to the caller's.
///   - filePath: The file path to report a failure in; defaults to the caller's.
///   - line: The line to report a failure at; defaults to the caller's.
///   - column: The column to report a failure at; defaults to the caller's.
/// - Complexity: O(*n*) reductions and comparisons for *n* actions.
@MainActor
public func replay<State: Equatable & Sendable>(
  _ recording: Recording,
  reducer: @escaping Reducer<State>,
  initialState: State? = nil,
  expectingAfterEach expected: [State],
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) async {
  let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  guard expected.count == recording.entries.count else {
    reportFailure(
      "The recording holds \(recording.entries.count) actions, and \(expected.count) states "
        + "were expected.", at: location)
    return
  }
  let store = Store(reducer: reducer, state: initialState)
  for (step, entry) in recording.entries.enumerated() {
    if let action = entry.action { store.dispatch(action) }
    let actual = store.state
    guard actual != expected[step] else { continue }
    reportFailure(
      """
      After step \(step + 1) (line \(entry.line), \(entry.typeName)) the state differs \
      (− expected, + actual):
      \(stateDiff(expected: expected[step], actual: actual))
      """,
      at: location)
    return
  }
}

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
  let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
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
  var start = initialState
  if start == nil, let recorded = recording.initialState {
    // The recording's store was created with a state (or the session starts after a commit):
    // the replay starts from it, as the app's store did.
    guard let decodable = State.self as? any Decodable.Type,
      let decoded = try? JSONDecoder().decode(decodable, from: Data(recorded.jsonText().utf8))
        as? State
    else {
      reportFailure(
        "The recording starts from the state its store was created with, and \(State.self) "
          + "cannot be decoded from it. Make \(State.self) Decodable (Codable), or pass that "
          + "state as initialState:.", at: location)
      return
    }
    start = decoded
  }
  let store = Store(reducer: reducer, state: start)
  var tracker = StateChangeTracker<State>()
  do {
    _ = try tracker.track(store.state)
    guard log.initial.matches(tracker.json) else {
      reportFailure(
        "The state before the first action differs from the recorded one: "
          + (JSONChange.between(log.initial, tracker.json).map(\.sentence)
            .joined(separator: "; ")),
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
        actual = try tracker.track(store.state)
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

/// Replays a recording through a main-actor-isolated reducer of ReSwift's shape, what a reducer
/// function is in a target with default main-actor isolation, and checks the state it ends in.
///
/// The state's `Equatable` conformance is found at run time, as `TestStore` does, because there
/// it is main-actor isolated. Behaves as the overload for a nonisolated reducer.
///
/// - Parameters:
///   - recording: The recording.
///   - reducer: The app's reducer.
///   - initialState: The state to start from, or `nil` for the reducer's own.
///   - expected: The state the replay must end in.
///   - fileID: The file to report a failure in; defaults to the caller's.
///   - filePath: The file path to report a failure in; defaults to the caller's.
///   - line: The line to report a failure at; defaults to the caller's.
///   - column: The column to report a failure at; defaults to the caller's.
/// - Complexity: O(*n*) dispatches for *n* recorded actions, then one comparison of states; a
///   failing comparison adds a diff, O(*a* × *b*) for dumps of *a* and *b* lines.
@MainActor
public func replay<State: Sendable>(
  _ recording: Recording,
  reducer: @escaping @MainActor (_ action: any Action, _ state: State?) -> State,
  initialState: State? = nil,
  expecting expected: State,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) async {
  let store = Store(reducer: reducer, state: initialState)
  check(
    replaying: recording, into: store, expecting: expected,
    isEqual: dynamicEquality(of: State.self),
    at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
}

/// Replays a recording through a main-actor-isolated reducer that changes the state in place,
/// what `combineReducers` and `scopedReducer` return for main-actor reducers, and checks the state
/// it ends in.
///
/// - Parameters:
///   - recording: The recording.
///   - reducer: The app's reducer.
///   - initialState: The state to start from.
///   - expected: The state the replay must end in.
///   - fileID: The file to report a failure in; defaults to the caller's.
///   - filePath: The file path to report a failure in; defaults to the caller's.
///   - line: The line to report a failure at; defaults to the caller's.
///   - column: The column to report a failure at; defaults to the caller's.
/// - Complexity: O(*n*) dispatches for *n* recorded actions, then one comparison of states; a
///   failing comparison adds a diff, O(*a* × *b*) for dumps of *a* and *b* lines.
@MainActor
public func replay<State: Sendable>(
  _ recording: Recording,
  reducer: @escaping MainActorInPlaceReducer<State>,
  initialState: State,
  expecting expected: State,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) async {
  // `State: Sendable` without `Equatable` tells this overload apart from the nonisolated one.
  let store = Store(reducer: reducer, state: initialState)
  check(
    replaying: recording, into: store, expecting: expected,
    isEqual: dynamicEquality(of: State.self),
    at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
}

@MainActor
private func check<State: Equatable & Sendable>(
  replaying recording: Recording, into store: Store<State>, expecting expected: State,
  at location: TestLocation
) {
  check(replaying: recording, into: store, expecting: expected, isEqual: ==, at: location)
}

@MainActor
private func check<State: Sendable>(
  replaying recording: Recording, into store: Store<State>, expecting expected: State,
  isEqual: ((State, State) -> Bool)?, at location: TestLocation
) {
  guard let isEqual else {
    reportFailure(
      "replay compares states, and \(State.self) is not Equatable. Add the conformance: "
        + "struct \(State.self): Equatable.", at: location)
    return
  }
  recording.replay(into: store)
  let actual = store.state
  guard !isEqual(actual, expected) else { return }
  let stopped = recording.stoppedAtLine.map { " (the recording stopped at line \($0))" } ?? ""
  reportFailure(
    """
    The replay of \(recording.entries.count) recorded actions\(stopped) ended in a different \
    state (− expected, + actual):
    \(stateDiff(expected: expected, actual: actual))
    """,
    at: location)
}
