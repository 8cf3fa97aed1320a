import Statecraft
import StatecraftPrimitives

// What a `TestStore` checks after an action is sent: the actions async work dispatched, received
// in order, and the end of the test.

extension TestStore {
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

  func check(
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

  func failOnUnreceivedActions(before what: String, at location: TestLocation) {
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
