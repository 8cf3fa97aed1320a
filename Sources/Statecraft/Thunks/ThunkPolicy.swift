import StatecraftPrimitives

/// What starting a thunk does when thunks with the same ``ThunkID`` are running or have just
/// run: the effect policies, with the names Rx and TCA users know.
///
/// Give a thunk an `id` and a policy:
///
/// ```swift
/// func search(_ query: String) -> Thunk<AppState> {
///   Thunk(id: "search", policy: .debounce(.milliseconds(250))) { context in
///     let results = try await context.environment[SearchServiceKey.self].search(query)
///     context.dispatch(SetResults(results))
///   }
/// }
/// ```
///
/// Time-based policies wait on the store's ``ThunkClock`` (``ThunkContext/clock``), so a test
/// replaces it with `TestClock` from `StatecraftTesting` and advances time by hand. A thunk
/// without an `id` always runs at once.
public enum ThunkPolicy: Sendable, Hashable {
  /// Runs alongside any others with the same id. The default.
  case concurrent
  /// Cancels the running ones with the same id, then runs (Rx `switchMap`, TCA's
  /// `cancelInFlight`). The cancelled `AsyncThunk`s' `cancelled` actions are reduced before this
  /// one's `pending`.
  case cancelPrevious
  /// Does not run while one with the same id runs (Rx `exhaustMap`): the dropped thunk
  /// dispatches nothing, and its task throws `CancellationError`.
  case dropWhileRunning
  /// Runs after the ones with the same id started before it have ended, one at a time, in the
  /// order they were dispatched (Rx `concatMap`).
  case queue
  /// Cancels the waiting or running ones with the same id and runs after `interval` without a
  /// newer one: only the last of a burst runs. Nothing is dispatched while it waits, not even an
  /// `AsyncThunk`'s `pending`.
  case debounce(Interval)
  /// Runs at most once per `interval`: one dispatched less than `interval` after the last that
  /// ran is dropped, as with ``dropWhileRunning``.
  case throttle(Interval)
}

/// The time source thunks and their policies wait on.
///
/// The store's environment provides it under ``ThunkClockKey``; ``ThunkContext/clock`` reads
/// it. The default is the system's monotonic clock; tests set `TestClock` from
/// `StatecraftTesting` to control time.
public protocol ThunkClock: Sendable {
  /// The time since an arbitrary origin, never going back.
  ///
  /// - Complexity: O(1) in the clocks Statecraft ships; keep a conforming clock's O(1) too, as
  ///   the store reads it each time a thunk with an `id` and a policy other than `.concurrent`
  ///   starts.
  var now: Interval { get }

  /// Suspends the calling task for `interval`.
  ///
  /// - Parameter interval: How long to wait.
  /// - Throws: `CancellationError` if the task is cancelled meanwhile.
  /// - Complexity: O(1) to register the wait, in the clocks Statecraft ships.
  func sleep(for interval: Interval) async throws
}

/// The system's monotonic clock: `DispatchTime` and `Task.sleep(nanoseconds:)`;
/// ``ThunkClockKey/defaultValue``.
package struct SystemThunkClock: ThunkClock {
  package init() {}

  package var now: Interval {
    Interval(nanoseconds: MonotonicClock.now)
  }

  package func sleep(for interval: Interval) async throws {
    try await Task.sleep(nanoseconds: interval.nanoseconds)
  }
}

/// The environment key of the clock thunks wait on.
public enum ThunkClockKey: ThunkEnvironmentKey {
  /// The system's monotonic clock.
  /// - Complexity: O(1).
  public static let defaultValue: any ThunkClock = SystemThunkClock()
  /// The system's clock too: a test that does not set a `TestClock` waits in real time rather
  /// than failing.
  /// - Complexity: O(1).
  public static let testValue: (any ThunkClock)? = SystemThunkClock()
}

extension ThunkContext {
  /// The clock the store's thunks wait on: sleep on it rather than with `Task.sleep`, so that
  /// tests control the time.
  ///
  /// ```swift
  /// try await context.clock.sleep(for: .seconds(1))
  /// ```
  /// - Complexity: O(1).
  public var clock: any ThunkClock {
    environment[ThunkClockKey.self]
  }
}
