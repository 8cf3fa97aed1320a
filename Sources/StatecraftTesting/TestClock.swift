import Statecraft
import StatecraftPrimitives

/// A clock for tests: time stands still until the test advances it, so time-based thunks and
/// policies (debounce, throttle) run without real waiting.
///
/// ```swift
/// let clock = TestClock()
/// store.thunkEnvironment[ThunkClockKey.self] = clock
/// store.dispatch(search("h"))
/// let last = store.dispatch(search("ho"))      // supersedes "h" (a `.debounce` policy)
/// await clock.waitForSleepers(1)              // the search for "ho" waits on the clock
/// await clock.advance(by: .milliseconds(300))  // only the search for "ho" runs
/// try await last.value
/// ```
///
/// A thunk starts waiting in a task of its own, after `dispatch` returns: wait for it with
/// ``waitForSleepers(_:timeout:fileID:filePath:line:column:)`` before advancing, or the advance
/// happens before the wait begins and does not end it.
public final class TestClock: ThunkClock, Sendable {
  private struct Sleeper {
    let deadline: UInt64
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct Time {
    var now: UInt64 = 0
    var nextID: UInt64 = 0
    var sleepers: [UInt64: Sleeper] = [:]
  }

  private let time = Locked(Time())

  /// Creates a clock at time zero.
  /// - Complexity: O(1).
  public init() {}

  /// The time the test advanced the clock to.
  /// - Complexity: O(1).
  public var now: Interval {
    Interval(nanoseconds: time.withLock { $0.now })
  }

  /// How many tasks are sleeping on the clock.
  /// - Complexity: O(1).
  public var sleeperCount: Int {
    time.withLock { $0.sleepers.count }
  }

  /// Suspends the calling task until the test advances the clock by `interval`.
  ///
  /// - Parameter interval: How long to wait.
  /// - Throws: `CancellationError` if the task is cancelled meanwhile.
  /// - Complexity: O(1).
  public func sleep(for interval: Interval) async throws {
    let id = time.withLock { time in
      defer { time.nextID += 1 }
      return time.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        // A task cancelled before it waits is never counted as sleeping, so that
        // `waitForSleepers` does not see a superseded thunk for a moment.
        let cancelled = Task.isCancelled
        let resumeNow = time.withLock { time -> Bool in
          guard interval.nanoseconds > 0, !cancelled else { return true }
          time.sleepers[id] = Sleeper(
            deadline: time.now + interval.nanoseconds, continuation: continuation)
          return false
        }
        if resumeNow {
          if cancelled {
            continuation.resume(throwing: CancellationError())
          } else {
            continuation.resume()
          }
        }
        if Task.isCancelled { cancel(id) }
      }
    } onCancel: {
      cancel(id)
    }
  }

  private func cancel(_ id: UInt64) {
    let sleeper = time.withLock { $0.sleepers.removeValue(forKey: id) }
    sleeper?.continuation.resume(throwing: CancellationError())
  }

  /// Moves the time forward by `interval`, wakes the tasks whose wait is over, in the order
  /// of their deadlines, and lets them run until they wait again or end.
  ///
  /// - Parameter interval: How far to move.
  /// - Complexity: O(s log s) for s sleeping tasks, plus the woken tasks' work.
  public func advance(by interval: Interval) async {
    let due = time.withLock { time -> [Sleeper] in
      time.now += interval.nanoseconds
      let due = time.sleepers.filter { $0.value.deadline <= time.now }
      for id in due.keys { time.sleepers[id] = nil }
      return due.values.sorted { $0.deadline < $1.deadline }
    }
    for sleeper in due { sleeper.continuation.resume() }
    await settle()
  }

  /// Waits until at least `count` tasks sleep on the clock, such as the thunks a test just
  /// dispatched, which start waiting in tasks of their own.
  ///
  /// Fails the test if they do not within `timeout` of real time.
  ///
  /// - Parameters:
  ///   - count: How many sleeping tasks to wait for.
  ///   - timeout: How long to wait, in real time, before failing. Time in which the calling
  ///     task was kept from running counts at most 10 ms a gap.
  ///   - fileID: The file to report a failure in; defaults to the caller's.
  ///   - filePath: The file path to report a failure in; defaults to the caller's.
  ///   - line: The line to report a failure at; defaults to the caller's.
  ///   - column: The column to report a failure at; defaults to the caller's.
  /// - Complexity: O(1) per check; checks between yields of the calling task.
  public func waitForSleepers(
    _ count: Int = 1, timeout: Interval = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    var budget = PollingBudget(timeout)
    while sleeperCount < count {
      guard budget.look() else {
        reportFailure(
          "\(sleeperCount) of the \(count) tasks expected to wait on the TestClock did so within "
            + "\(timeout). Did the thunk start, and does it wait on context.clock?",
          at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        return
      }
      await Task.yield()
    }
  }

  /// Lets the tasks woken or started so far run until they wait again or end.
  ///
  /// Yields the calling task a bounded number of times; it does not wait for real time.
  /// - Complexity: O(1) yields.
  public func settle() async {
    for _ in 0..<100 { await Task.yield() }
  }
}
