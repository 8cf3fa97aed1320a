import Foundation
import Statecraft
import StatecraftPrimitives

/// Checks what a thunk dispatches, in order, against the states you hand it: ReSwift-Thunk's
/// `ExpectThunk`, for async thunks too.
///
/// In an `async` test, `await run()` runs the thunk in a store and waits for it:
///
/// ```swift
/// await ExpectThunk(refreshFilms)
///   .getsState(AppState())                                  // what getState returns first
///   .dispatches(SetLoading.self) { #expect($0.isLoading) }
///   .getsState(AppState(isLoading: true))                   // after that dispatch
///   .dispatches(SetFilms.self) { #expect($0.films.count == 6) }
///   .dispatches(SetLoading(isLoading: false))
///   .run()
/// ```
///
/// There the store's reducer does not reduce: after the n-th dispatched action, `getState`
/// returns the (n+1)-th state given (or the last one). The run fails if the thunk dispatches
/// other actions, fewer, or more than expected.
///
/// In a synchronous test, `run()` and `wait(timeout:)` behave exactly as ReSwift-Thunk's, so its
/// tests move over unchanged:
///
/// ```swift
/// func testRefresh() {
///   ExpectThunk(refreshFilms)
///     .getsState(AppState())
///     .dispatches(SetLoading(isLoading: true))
///     .dispatches { action in XCTAssert(action is SetFilms) }
///     .dispatches(SetLoading(isLoading: false))
///     .wait()
/// }
/// ```
///
/// There the thunk runs through `createThunkMiddleware()` with no store: each call of
/// `getState` returns the next state given, then `nil`; each dispatch is checked against the
/// next expectation; states or expectations left over fail the test.
///
/// A thunk that reads a service gets it from ``environment(_:_:)``:
///
/// ```swift
/// await ExpectThunk(fetchFilms())
///   .environment(FilmServiceKey.self, StubFilmService(films: [hope]))
///   .getsState(AppState())
///   .dispatches(ThunkLifecycle<[Film]>.self) { #expect($0.isPending) }
///   .dispatches(ThunkLifecycle<[Film]>.self) { #expect($0.value == [hope]) }
///   .run()
/// ```
public final class ExpectThunk<State: Sendable> {
  enum Work {
    case thunk(Thunk<State>)
    case valued(@Sendable (Store<State>) async -> Void)
  }

  struct Expectation: Sendable {
    let description: String
    let location: TestLocation
    /// Checks the action; returns whether it has the expected type.
    ///
    /// The test's own closure, which need not be `Sendable`: each check is taken from the
    /// session under its lock and called once, so no two threads call one.
    nonisolated(unsafe) let check: (any Action) -> Bool
  }

  let work: Work
  var states: [State] = []
  var stateLocations: [TestLocation] = []
  var expectations: [Expectation] = []
  var environment = ThunkEnvironment()
  let recorded = Locked<[any Action]>([])

  /// Prepares to run `thunk`.
  ///
  /// - Parameter thunk: The thunk under test.
  /// - Complexity: O(1).
  public init(_ thunk: Thunk<State>) {
    work = .thunk(thunk)
  }

  /// Prepares to run a thunk that produces a value; its lifecycle actions count as dispatches.
  ///
  /// Run it with the `async` ``run(fileID:filePath:line:column:)``.
  ///
  /// - Parameter thunk: The thunk under test.
  /// - Complexity: O(1).
  public init<Value>(_ thunk: AsyncThunk<State, Value>) {
    work = .valued { store in _ = try? await store.dispatch(thunk).value }
  }

  /// The actions the thunk dispatched so far, in order.
  /// - Complexity: O(1): a lock and a copy of the array (a reference count).
  public var dispatched: [any Action] {
    recorded.withLock { $0 }
  }

  /// Adds a state for `getState` to return, in order.
  ///
  /// - Parameters:
  ///   - state: The state.
  ///   - file: The file to report a state left over in; defaults to the caller's.
  ///   - line: The line to report a state left over at; defaults to the caller's.
  /// - Returns: This expectation, to chain calls.
  /// - Complexity: O(1) amortized.
  @discardableResult
  public func getsState(_ state: State, file: StaticString = #filePath, line: UInt = #line)
    -> Self
  {
    states.append(state)
    stateLocations.append(TestLocation(fileID: file, filePath: file, line: line, column: 1))
    return self
  }

  /// Expects the next dispatched action to be of type `type`, and checks it.
  ///
  /// - Parameters:
  ///   - type: The expected type.
  ///   - check: Further checks on the action, with `#expect` or `XCTAssert`.
  ///   - file: The file to report the dispatch missing in; defaults to the caller's.
  ///   - line: The line to report the dispatch missing at; defaults to the caller's.
  /// - Returns: This expectation, to chain calls.
  /// - Complexity: O(1) amortized.
  @discardableResult
  public func dispatches<Dispatched: Action>(
    _ type: Dispatched.Type, _ check: @escaping (Dispatched) -> Void = { _ in },
    file: StaticString = #filePath, line: UInt = #line
  ) -> Self {
    expect("\(Dispatched.self)", file, line) { action in
      guard let action = action as? Dispatched else { return false }
      check(action)
      return true
    }
  }

  /// Expects the next dispatched action to equal `expected`: ReSwift-Thunk's form.
  ///
  /// - Parameters:
  ///   - expected: The action.
  ///   - file: The file to report a mismatch in; defaults to the caller's.
  ///   - line: The line to report a mismatch at; defaults to the caller's.
  /// - Returns: This expectation, to chain calls.
  /// - Complexity: O(1) amortized.
  @discardableResult
  public func dispatches<Expected: Action & Equatable>(
    _ expected: Expected, file: StaticString = #filePath, line: UInt = #line
  ) -> Self {
    let location = TestLocation(fileID: file, filePath: file, line: line, column: 1)
    return expect("\(expected)", file, line) { action in
      if action as? Expected != expected {
        reportFailure(
          "Dispatched action does not equal expected: \(describe(action)) \(expected)",
          at: location)
      }
      return true
    }
  }

  /// Passes the next dispatched action to `assertion`: ReSwift-Thunk's form.
  ///
  /// ```swift
  /// .dispatches { action in XCTAssert(action is SetFilms) }
  /// ```
  ///
  /// - Parameters:
  ///   - file: The file to report the dispatch missing in; defaults to the caller's.
  ///   - line: The line to report the dispatch missing at; defaults to the caller's.
  ///   - assertion: Checks the action.
  /// - Returns: This expectation, to chain calls.
  /// - Complexity: O(1) amortized.
  @discardableResult
  public func dispatches(
    file: StaticString = #filePath, line: UInt = #line,
    dispatch assertion: @escaping (any Action) -> Void
  ) -> Self {
    expect("dispatch assertion", file, line) { action in
      assertion(action)
      return true
    }
  }

  private func expect(
    _ description: String, _ file: StaticString, _ line: UInt,
    _ check: @escaping (any Action) -> Bool
  ) -> Self {
    expectations.append(
      Expectation(
        description: description,
        location: TestLocation(fileID: file, filePath: file, line: line, column: 1),
        check: check))
    return self
  }

  /// Sets a value in the thunk's environment, such as a stub service.
  ///
  /// - Parameters:
  ///   - key: The environment key.
  ///   - value: The value.
  /// - Returns: This expectation, to chain calls.
  /// - Complexity: O(1).
  @discardableResult
  public func environment<Key: ThunkEnvironmentKey>(_ key: Key.Type, _ value: Key.Value) -> Self {
    environment[key] = value
    return self
  }
}

// MARK: - Running in a store

extension ExpectThunk {
  /// Runs the thunk in a store, waits until it and the thunks it dispatched are done, and checks
  /// the dispatched actions against the expectations.
  ///
  /// - Parameters:
  ///   - fileID: The file to report a failure in; defaults to the caller's.
  ///   - filePath: The file path to report a failure in; defaults to the caller's.
  ///   - line: The line to report a failure at; defaults to the caller's.
  ///   - column: The column to report a failure at; defaults to the caller's.
  /// - Complexity: The thunk's run, plus O(n) for n dispatched actions.
  nonisolated(nonsending)
    public func run(
      fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
      column: UInt = #column
    ) async
  {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard let first = states.first else {
      reportFailure("ExpectThunk needs at least one state: call getsState(_:) first.", at: location)
      return
    }
    let queue = Locked(Array(states.dropFirst()))
    let recorded = self.recorded
    let store = Store<State>(
      reducer: { (state: inout State, action: any Action) in
        recorded.withLock { $0.append(action) }
        if let next = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { state = next }
      },
      state: first
    )
    let unsetKeys = Locked<[String]>([])
    var environment = self.environment
    environment.context = .test { key in
      unsetKeys.withLock { if !$0.contains(key) { $0.append(key) } }
    }
    store.thunkEnvironment = environment
    switch work {
    case .thunk(let thunk): _ = try? await store.dispatch(thunk).value
    case .valued(let work): await work(store)
    }
    for key in unsetKeys.withLock({ $0 }) {
      reportFailure(
        "The thunk read \(key) from the environment, which this test did not set with "
          + ".environment(\(key).self, …) and which has no testValue, so it got the live value.",
        at: location)
    }
    let actions = dispatched
    for (index, expectation) in expectations.enumerated() {
      guard index < actions.count else {
        reportFailure(
          "Expected dispatch \(index + 1) to be \(expectation.description), but the thunk "
            + "dispatched only \(actions.count) action(s).", at: location)
        return
      }
      if !expectation.check(actions[index]) {
        reportFailure(
          "Expected dispatch \(index + 1) to be \(expectation.description), but it was "
            + "\(describe(actions[index])).", at: location)
      }
    }
    if actions.count > expectations.count {
      let extra = actions.dropFirst(expectations.count).map(describe).joined(separator: ", ")
      reportFailure("The thunk dispatched more than expected: \(extra).", at: location)
    }
  }
}
