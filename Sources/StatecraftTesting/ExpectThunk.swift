import Statecraft
import StatecraftTools

/// Checks what a thunk dispatches, in order, against the states you hand it: ReSwift-Thunk's
/// `ExpectThunk`, for async thunks too.
///
/// ```swift
/// await ExpectThunk(fetchFilms)
///   .getsState(AppState())                                  // what getState returns first
///   .dispatches(SetLoading.self) { #expect($0.isLoading) }
///   .getsState(AppState(isLoading: true))                   // after that dispatch
///   .dispatches(SetFilms.self) { #expect($0.films.count == 6) }
///   .run()
/// ```
///
/// The thunk runs against a store whose reducer does not reduce: after the n-th dispatched
/// action, `getState` returns the (n+1)-th state given (or the last one). The run fails if the
/// thunk dispatches other actions, fewer, or more than expected.
@MainActor
public final class ExpectThunk<State: Sendable> {
  private enum Run {
    case thunk(Thunk<State>)
    case work(@Sendable (Store<State>) async -> Void)
  }

  private let run: Run
  private var states: [State] = []
  private var expectations: [(description: String, check: (any Action) -> Bool)] = []
  private var environment = ThunkEnvironment()

  /// Prepares to run `thunk`.
  ///
  /// - Parameter thunk: The thunk under test.
  public init(_ thunk: Thunk<State>) {
    run = .thunk(thunk)
  }

  /// Prepares to run a thunk that produces a value; its lifecycle actions count as dispatches.
  ///
  /// - Parameter thunk: The thunk under test.
  public init<Value>(_ thunk: AsyncThunk<State, Value>) {
    run = .work { store in _ = try? await store.dispatch(thunk).value }
  }

  /// Adds a state for `getState` to return, in order.
  ///
  /// - Parameter state: The state.
  /// - Returns: This expectation, to chain calls.
  @discardableResult
  public func getsState(_ state: State) -> Self {
    states.append(state)
    return self
  }

  /// Expects the next dispatched action to be of type `type`, and checks it.
  ///
  /// - Parameters:
  ///   - type: The expected type.
  ///   - check: Further checks on the action, with `#expect` or `XCTAssert`.
  /// - Returns: This expectation, to chain calls.
  @discardableResult
  public func dispatches<Dispatched: Action>(
    _ type: Dispatched.Type, _ check: @escaping (Dispatched) -> Void = { _ in }
  ) -> Self {
    expectations.append(
      (
        "\(Dispatched.self)",
        { action in
          guard let action = action as? Dispatched else { return false }
          check(action)
          return true
        }
      ))
    return self
  }

  /// Sets a value in the thunk's environment, such as a stub service.
  ///
  /// - Parameters:
  ///   - key: The environment key.
  ///   - value: The value.
  /// - Returns: This expectation, to chain calls.
  @discardableResult
  public func environment<Key: ThunkEnvironmentKey>(_ key: Key.Type, _ value: Key.Value) -> Self {
    environment[key] = value
    return self
  }

  /// Runs the thunk, waits until it and the thunks it dispatched are done, and checks the
  /// dispatched actions against the expectations.
  ///
  /// - Parameters:
  ///   - fileID: The file to report a failure in; defaults to the caller's.
  ///   - filePath: The file path to report a failure in; defaults to the caller's.
  ///   - line: The line to report a failure at; defaults to the caller's.
  ///   - column: The column to report a failure at; defaults to the caller's.
  public func run(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard let first = states.first else {
      reportFailure("ExpectThunk needs at least one state: call getsState(_:) first.", at: location)
      return
    }
    let queue = LockedBox(Array(states.dropFirst()))
    let dispatched = LockedBox<[any Action]>([])
    let store = Store<State>(
      reducer: { (state: inout State, action: any Action) in
        dispatched.withLock { $0.append(action) }
        if let next = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { state = next }
      },
      state: first
    )
    store.thunkEnvironment = environment
    switch run {
    case .thunk(let thunk): _ = try? await store.dispatch(thunk).value
    case .work(let work): await work(store)
    }
    let actions = dispatched.withLock { $0 }
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
