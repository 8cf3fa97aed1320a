import Statecraft
import StatecraftPrimitives

/// A store for tests that checks every state change and every action async work dispatches.
///
/// Send an action and say how the state changes; receive the actions thunks dispatch, in
/// order, and say how each changes the state. Any difference fails the test with a diff, at
/// the line of the call:
///
/// ```swift
/// @Test func loadingFilms() async {
///   let store = TestStore(initialState: AppState(), reducer: appReducer)
///   store.thunkEnvironment[FilmServiceKey.self] = StubFilmService(films: [hope])
///
///   await store.send(fetchFilms())
///   await store.receive(ThunkLifecycle<[Film]>.self) { $0.isLoading = true }
///   await store.receive(ThunkLifecycle<[Film]>.self) {
///     $0.films = [hope]
///     $0.isLoading = false
///   }
///   await store.finish()
/// }
/// ```
///
/// By default the store is exhaustive: ``finish(timeout:fileID:filePath:line:column:)`` fails
/// if actions were dispatched but never received. Set ``exhaustivity`` to `.off` to check only
/// what you assert.
@MainActor
public final class TestStore<State: Sendable> {
  /// Whether every dispatched action and every state change must be asserted.
  public enum Exhaustivity: Sendable {
    /// Every action async work dispatches must be received, and each assertion must describe
    /// the whole state change.
    case on
    /// Only what an assertion says is checked; actions not received are ignored.
    case off
  }

  /// The store under test, for code that needs a `Store` (subscribers, views).
  /// - Complexity: O(1).
  public let store: Store<State>
  /// Whether every action and state change must be asserted.
  ///
  /// Defaults to `.on`.
  /// - Complexity: O(1).
  public var exhaustivity: Exhaustivity = .on

  let log = ReductionLog<State>()
  /// Log entries up to this index have been checked.
  var checked = 0
  var expectedState: State
  var tasks: [@Sendable () async -> Void] = []

  /// Compares an expected state with the actual one.
  let isEqual: (State, State) -> Bool
  /// Environment keys thunks read without a value, reported at the next step of the test.
  let unsetKeys = Locked<[String]>([])

  /// Creates a test store for a reducer of ReSwift's shape.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: The app's reducer.
  ///   - middleware: Middleware to run, as in the app.
  /// - Complexity: O(m) for m middleware.
  public init(
    initialState: State, reducer: @escaping Reducer<State>,
    middleware: [Middleware<State>] = []
  ) where State: Equatable {
    store = Store(
      reducer: log.recording(reducer), state: initialState, middleware: middleware)
    expectedState = initialState
    isEqual = { $0 == $1 }
    useTestEnvironment()
  }

  /// Creates a test store for a reducer that changes the state in place, such as one built with
  /// `combineReducers` and `scopedReducer`.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: The app's reducer.
  ///   - middleware: Middleware to run, as in the app.
  /// - Complexity: O(m) for m middleware.
  public init(
    initialState: State, reducer: @escaping InPlaceReducer<State>,
    middleware: [Middleware<State>] = []
  ) where State: Equatable {
    store = Store(
      reducer: log.recordingInPlace(reducer), state: initialState, middleware: middleware,
      automaticallySkipsRepeats: true)
    expectedState = initialState
    isEqual = { $0 == $1 }
    useTestEnvironment()
  }

  /// Creates a test store for a main-actor-isolated reducer, what a reducer function is in a
  /// target with default main-actor isolation.
  ///
  /// There the state's `Equatable` conformance is main-actor isolated too, which a generic
  /// requirement cannot take; the test store finds it when it is created, on the main actor,
  /// and stops with a message if the state is not `Equatable`.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: The app's reducer.
  ///   - middleware: Middleware to run, as in the app.
  /// - Complexity: O(m) for m middleware, plus a run-time lookup of the state's `Equatable`
  ///   conformance.
  public init(
    initialState: State,
    reducer: @escaping @MainActor (_ action: any Action, _ state: State?) -> State,
    middleware: [Middleware<State>] = []
  ) {
    store = Store(
      reducer: log.recordingOnMainActor(reducer), state: initialState, middleware: middleware,
      automaticallySkipsRepeats: true)
    expectedState = initialState
    isEqual = Self.equality()
    useTestEnvironment()
  }

  /// The state's `Equatable` conformance, found at run time where a generic requirement cannot
  /// take it (a main-actor-isolated conformance).
  private static func equality() -> (State, State) -> Bool {
    guard let isEqual = dynamicEquality(of: State.self) else {
      fatalError(
        "Statecraft: TestStore compares states, and \(State.self) is not Equatable. Add the "
          + "conformance: struct \(State.self): Equatable.")
    }
    return isEqual
  }

  /// Creates a test store for a main-actor-isolated reducer that changes the state in place,
  /// what `combineReducers` and `scopedReducer` return for reducer functions in a target with
  /// default main-actor isolation.
  ///
  /// As with the main-actor reducer of ReSwift's shape, the state's `Equatable` conformance is
  /// found when the test store is created.
  ///
  /// - Parameters:
  ///   - initialState: The state to start from.
  ///   - reducer: The app's reducer.
  ///   - middleware: Middleware to run, as in the app.
  /// - Complexity: O(m) for m middleware, plus a run-time lookup of the state's `Equatable`
  ///   conformance.
  public init(
    initialState: consuming State,
    reducer: @escaping MainActorInPlaceReducer<State>,
    middleware: [Middleware<State>] = []
  ) {
    let initialState = initialState
    store = Store(
      reducer: log.recordingInPlaceOnMainActor(reducer), state: initialState,
      middleware: middleware, automaticallySkipsRepeats: true)
    expectedState = initialState
    isEqual = Self.equality()
    useTestEnvironment()
  }

  /// Makes thunks that read a key the test did not set, and that has no test value, fail the
  /// test instead of quietly using the live value.
  private func useTestEnvironment() {
    let unsetKeys = self.unsetKeys
    store.thunkEnvironment.context = .test { key in
      unsetKeys.withLock { if !$0.contains(key) { $0.append(key) } }
    }
  }

  func failOnUnsetKeys(at location: TestLocation) {
    let keys = unsetKeys.withLock { keys in
      defer { keys = [] }
      return keys
    }
    for key in keys {
      reportFailure(
        "A thunk read \(key) from the environment, which this test did not set and which has "
          + "no testValue, so it got the live value. Set store.thunkEnvironment[\(key).self], "
          + "or give \(key) a testValue.", at: location)
    }
  }

  /// The current state of the store.
  /// - Complexity: O(1): reads `Store.state`.
  public var state: State { store.state }

  /// The environment thunks read; replace services here.
  /// - Complexity: O(1): a lock and a copy of the environment's dictionary (a reference count).
  public var thunkEnvironment: ThunkEnvironment {
    get { store.thunkEnvironment }
    set { store.thunkEnvironment = newValue }
  }

  /// Dispatches `action` and checks the state it produces.
  ///
  /// - Parameters:
  ///   - action: The action to dispatch.
  ///   - updateExpectedState: Changes the expected state the way the action should; omit it
  ///     when the action should not change the state.
  ///   - fileID: The file to report a failure in; defaults to the caller's.
  ///   - filePath: The file path to report a failure in; defaults to the caller's.
  ///   - line: The line to report a failure at; defaults to the caller's.
  ///   - column: The column to report a failure at; defaults to the caller's.
  /// - Complexity: As `Store.dispatch(_:)`, plus the assertion, one comparison of states and
  ///   O(u) for the u actions reduced since the last check. A failing comparison adds a diff,
  ///   O(a × b) for dumps of a and b lines.
  public func send(
    _ action: some Action,
    assert updateExpectedState: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    failOnUnreceivedActions(before: "sending \(describe(action))", at: location)
    let start = log.count
    store.dispatch(action as any Action)
    guard let entry = log.entries(from: start).first else {
      reportFailure(
        "\(describe(action)) was not reduced: a middleware swallowed or delayed it.",
        at: location)
      return
    }
    checked = start + 1
    check(entry, update: updateExpectedState, at: location)
  }

  /// Runs a thunk; the actions it dispatches are then checked with
  /// ``receive(_:timeout:assert:fileID:filePath:line:column:)``.
  ///
  /// - Parameters:
  ///   - thunk: The thunk to run.
  ///   - fileID: The file to report a failure in; defaults to the caller's.
  ///   - filePath: The file path to report a failure in; defaults to the caller's.
  ///   - line: The line to report a failure at; defaults to the caller's.
  ///   - column: The column to report a failure at; defaults to the caller's.
  /// - Returns: The running thunk.
  /// - Complexity: O(u) for the u actions not yet received, plus the dispatch of the thunk: O(1)
  ///   plus its body when the body does not `await`; an `async` body runs in a new task.
  @discardableResult
  public func send(
    _ thunk: Thunk<State>, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async
    -> ThunkTask<Void>
  {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    failOnUnreceivedActions(before: "sending a thunk", at: location)
    let task = store.dispatch(thunk)
    tasks.append { _ = try? await task.value }
    return task
  }

  /// Runs a thunk that produces a value; its lifecycle and the actions it dispatches are then
  /// checked with ``receive(_:timeout:assert:fileID:filePath:line:column:)``.
  ///
  /// - Parameters:
  ///   - thunk: The thunk to run.
  ///   - fileID: The file to report a failure in; defaults to the caller's.
  ///   - filePath: The file path to report a failure in; defaults to the caller's.
  ///   - line: The line to report a failure at; defaults to the caller's.
  ///   - column: The column to report a failure at; defaults to the caller's.
  /// - Returns: The running thunk.
  /// - Complexity: O(u) for the u actions not yet received, plus one dispatch of the `pending`
  ///   action; the body runs in a new task.
  @discardableResult
  public func send<Value>(
    _ thunk: AsyncThunk<State, Value>,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async -> ThunkTask<Value> {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    failOnUnreceivedActions(before: "sending a thunk", at: location)
    let task = store.dispatch(thunk)
    tasks.append { _ = try? await task.value }
    return task
  }
}
