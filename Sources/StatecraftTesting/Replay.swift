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
