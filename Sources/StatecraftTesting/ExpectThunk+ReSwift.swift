import Foundation
import Statecraft
import StatecraftPrimitives

// `ExpectThunk` run as ReSwift-Thunk's is: through `createThunkMiddleware()`, checking each
// dispatch and state read as it happens.

extension ExpectThunk {
  /// Runs the thunk through `createThunkMiddleware()` as ReSwift-Thunk's `ExpectThunk` does,
  /// and fails for each expectation or state left over.
  ///
  /// A body that does not `await` has run when this returns. Use ``wait(timeout:file:line:description:)``
  /// when the thunk dispatches later, from work it started on another queue.
  ///
  /// - Parameters:
  ///   - file: The file to report a failure in; defaults to the caller's.
  ///   - line: The line to report a failure at; defaults to the caller's.
  /// - Returns: This expectation.
  /// - Complexity: The thunk's body, plus O(1) per dispatch.
  @discardableResult
  public func run(file: StaticString = #filePath, line: UInt = #line) -> Self {
    let session = start()
    failLeftovers(session)
    return self
  }

  /// Runs the thunk as ``run(file:line:)`` does, then waits up to `timeout` seconds for the
  /// dispatches still expected and the states still to be read, made from work the thunk
  /// started on other queues.
  ///
  /// The wait ends once every expected dispatch arrived and every state given with
  /// ``getsState(_:file:line:)`` was read, so a thunk that reads the state after its last
  /// dispatch is not reported for a read it was about to make.
  ///
  /// On the main thread the wait keeps running the main run loop, so work the thunk sends to the
  /// main queue runs too.
  ///
  /// - Parameters:
  ///   - timeout: The longest wait, in seconds.
  ///   - file: The file to report a failure in; defaults to the caller's.
  ///   - line: The line to report a failure at; defaults to the caller's.
  ///   - description: Names the wait in the failure message.
  /// - Returns: This expectation.
  /// - Complexity: The thunk's body, plus the wait.
  @discardableResult
  public func wait(
    timeout: Double = 1, file: StaticString = #filePath, line: UInt = #line,
    description: String = "ExpectThunk"
  ) -> Self {
    let session = start()
    let deadline = Date(timeIntervalSinceNow: timeout)
    while !session.allFulfilled, Date() < deadline {
      if Thread.isMainThread {
        _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.005))
      } else {
        Thread.sleep(forTimeInterval: 0.001)
      }
    }
    if !session.allFulfilled {
      reportFailure(
        "\(description): asynchronous wait failed after \(timeout) s: unfulfilled dispatches "
          + "or states not read.",
        at: TestLocation(fileID: file, filePath: file, line: line, column: 1))
    }
    failLeftovers(session)
    return self
  }

  private func start() -> Session {
    let session = Session(expectations: expectations, states: Array(zip(states, stateLocations)))
    guard case .thunk(let thunk) = work else {
      reportFailure(
        "ExpectThunk: an AsyncThunk runs in a store; use `await run()` in an async test.",
        at: session.expectations.first?.location
          ?? TestLocation(fileID: #fileID, filePath: #filePath, line: #line, column: #column))
      return session
    }
    let recorded = self.recorded
    let dispatch: DispatchFunction = { action in
      recorded.withLock { $0.append(action) }
      session.check(action)
    }
    let getState: GetState<State> = { session.nextState() }
    let middleware: Middleware<State> = createThunkMiddleware()
    middleware(dispatch, getState)({ _ in })(thunk)
    return session
  }

  private func failLeftovers(_ session: Session) {
    let (expectations, states) = session.leftovers()
    for expectation in expectations {
      reportFailure("Unfulfilled dispatches: \(expectation.description)", at: expectation.location)
    }
    for (state, location) in states {
      reportFailure("Unfulfilled getsState: \(state)", at: location)
    }
  }

  /// The expectations and states one ReSwift-style run consumes, from any thread.
  private final class Session: Sendable {
    private let remaining: Locked<(expectations: [Expectation], states: [(State, TestLocation)])>

    init(expectations: [Expectation], states: [(State, TestLocation)]) {
      remaining = Locked((expectations, states))
    }

    var expectations: [Expectation] {
      remaining.withLock { $0.expectations }
    }

    /// Whether every expected dispatch arrived and every given state was read.
    var allFulfilled: Bool {
      remaining.withLock { $0.expectations.isEmpty && $0.states.isEmpty }
    }

    func check(_ action: any Action) {
      let next = remaining.withLock {
        $0.expectations.isEmpty ? nil : $0.expectations.removeFirst()
      }
      guard let next else { return }
      if !next.check(action) {
        reportFailure(
          "Expected a dispatch of \(next.description), but it was \(describe(action)).",
          at: next.location)
      }
    }

    func nextState() -> State? {
      remaining.withLock { $0.states.isEmpty ? nil : $0.states.removeFirst().0 }
    }

    func leftovers() -> ([Expectation], [(State, TestLocation)]) {
      remaining.withLock { ($0.expectations, $0.states) }
    }
  }
}
