import Statecraft
import StatecraftTools

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

  private let log = ReductionLog<State>()
  /// Log entries up to this index have been checked.
  private var checked = 0
  private var expectedState: State
  private var tasks: [@Sendable () async -> Void] = []

  /// Compares an expected state with the actual one.
  private let isEqual: (State, State) -> Bool
  /// Environment keys thunks read without a value, reported at the next step of the test.
  private let unsetKeys = Locked<[String]>([])

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

  private func failOnUnsetKeys(at location: TestLocation) {
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

  /// Waits for the next action that async work dispatched, checks its type, and checks the
  /// state it produced.
  ///
  /// With ``exhaustivity`` `.off`, actions of other types are skipped.
  ///
  /// - Parameters:
  ///   - type: The type of the expected action.
  ///   - timeout: How long to wait for it. Time in which the main actor was kept from running
  ///     counts at most 10 ms a gap, so a main queue held by other work does not use it up.
  ///   - updateExpectedState: Changes the expected state the way the action should.
  ///   - fileID: The file to report a failure in; defaults to the caller's.
  ///   - filePath: The file path to report a failure in; defaults to the caller's.
  ///   - line: The line to report a failure at; defaults to the caller's.
  ///   - column: The column to report a failure at; defaults to the caller's.
  /// - Complexity: O(u) per look at the u actions not yet received: one look each millisecond
  ///   until the action arrives or `timeout` passes, and one more per action skipped with
  ///   ``exhaustivity`` `.off`. Then the assertion and one comparison of states; a failing
  ///   comparison adds a diff, O(a × b) for dumps of a and b lines.
  public func receive<Received: Action>(
    _ type: Received.Type,
    timeout: Interval = .seconds(2),
    assert updateExpectedState: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    defer { failOnUnsetKeys(at: location) }
    var budget = PollingBudget(timeout)
    while true {
      if let entry = log.entries(from: checked).first {
        checked += 1
        if entry.action is Received {
          check(entry, update: updateExpectedState, at: location)
          return
        }
        if exhaustivity == .on {
          reportFailure(
            "Expected to receive \(Received.self), but received \(describe(entry.action)).",
            at: location)
          expectedState = entry.state
          return
        }
        expectedState = entry.state
        continue
      }
      guard budget.look() else {
        reportFailure(
          "Expected to receive \(Received.self) within \(timeout), but nothing arrived.",
          at: location)
        return
      }
      await MonotonicClock.sleep(for: .milliseconds(1))
    }
  }

  /// Waits for the thunks sent to finish and, when exhaustive, fails if any action they
  /// dispatched was not received.
  ///
  /// - Parameters:
  ///   - timeout: How long to wait for the thunks. Time in which the main actor was kept from
  ///     running counts at most 10 ms a gap.
  ///   - fileID: The file to report a failure in; defaults to the caller's.
  ///   - filePath: The file path to report a failure in; defaults to the caller's.
  ///   - line: The line to report a failure at; defaults to the caller's.
  ///   - column: The column to report a failure at; defaults to the caller's.
  /// - Complexity: Waits for the thunks sent, checking every millisecond; then O(u) for the u
  ///   actions not received.
  public func finish(
    timeout: Interval = .seconds(2),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let pending = tasks
    tasks = []
    let finished = Locked(false)
    let waiter = Task {
      for wait in pending { await wait() }
      finished.withLock { $0 = true }
    }
    var budget = PollingBudget(timeout)
    while !finished.withLock({ $0 }), budget.look() {
      await MonotonicClock.sleep(for: .milliseconds(1))
    }
    if !finished.withLock({ $0 }) {
      waiter.cancel()
      reportFailure("Thunks were still running after \(timeout).", at: location)
    }
    failOnUnreceivedActions(before: "finishing", at: location)
  }

  private func check(
    _ entry: ReductionLog<State>.Entry, update: ((inout State) throws -> Void)?,
    at location: TestLocation
  ) {
    var expected = exhaustivity == .on ? expectedState : entry.state
    do {
      try update?(&expected)
    } catch {
      reportFailure("The state assertion threw \(error).", at: location)
    }
    if !isEqual(expected, entry.state) {
      reportFailure(
        """
        State after \(describe(entry.action)) differs from the expected state \
        (− expected, + actual):
        \(stateDiff(expected: expected, actual: entry.state))
        """,
        at: location)
    }
    expectedState = entry.state
  }

  private func failOnUnreceivedActions(before what: String, at location: TestLocation) {
    failOnUnsetKeys(at: location)
    let unreceived = log.entries(from: checked)
    guard !unreceived.isEmpty else { return }
    if exhaustivity == .on {
      reportFailure(
        """
        \(unreceived.count) action(s) were dispatched but not received before \(what):
        \(unreceived.map { "  " + describe($0.action) }.joined(separator: "\n"))
        """,
        at: location)
    }
    checked += unreceived.count
    expectedState = unreceived[unreceived.count - 1].state
  }
}

func describe(_ action: any Action) -> String {
  let value = String(describing: action)
  let type = String(describing: Swift.type(of: action))
  return value.hasPrefix(type) ? value : "\(type).\(value)"
}
