/// How much a recorder may hold while its writer catches up, and how often it writes a whole
/// state.
///
/// A dispatch only hands the action and the new state to the recorder, which keeps them in a
/// buffer; a background thread encodes and writes them. When the writer falls behind (a slow
/// disk, a large state, a burst of dispatches), the buffer never grows past these limits and a
/// dispatch never waits:
/// - Past ``maximumPendingStates`` states, the recorder keeps the newest state and drops the
///   one before it (coalescing): its action is still written, marked `stateDropped`, so the
///   recording lists every action and always catches up to the latest state.
/// - Past ``maximumPendingActions`` actions, the recorder drops whole actions, counts them and
///   keeps the newest state; the writer then writes a gap line that says which indices are
///   missing, with the state after them.
///
/// Recording a state costs a copy on the dispatching thread all the same: the buffer shares the
/// state's storage, so the next action that changes a collection of the state in place copies
/// that collection (an array of 100,000 elements copies 100,000 elements), as it would if any
/// other code kept the old state. Record a large state only where that cost is acceptable (debug
/// builds), or record the actions only (a state that is not `Encodable`). The limit on pending
/// states bounds the memory those copies hold.
public struct RecordingLimits: Sendable, Equatable {
  /// How many actions may wait for the writer: 65,536 by default.
  /// - Complexity: O(1).
  public var maximumPendingActions: Int
  /// How many states may wait for the writer: 64 by default.
  /// - Complexity: O(1).
  public var maximumPendingStates: Int
  /// How many states lie at most between two that are written whole: 1,000 by default.
  /// - Complexity: O(1).
  public var snapshotInterval: Int

  /// Creates limits.
  ///
  /// - Parameters:
  ///   - maximumPendingActions: How many actions may wait for the writer; at least 1.
  ///   - maximumPendingStates: How many states may wait for the writer; at least 1.
  ///   - snapshotInterval: How many states lie at most between two whole ones; at least 1.
  /// - Complexity: O(1).
  public init(
    maximumPendingActions: Int = 65_536, maximumPendingStates: Int = 64,
    snapshotInterval: Int = 1_000
  ) {
    self.maximumPendingActions = max(1, maximumPendingActions)
    self.maximumPendingStates = max(1, maximumPendingStates)
    self.snapshotInterval = max(1, snapshotInterval)
  }
}

/// What a recorder wrote and what it dropped because its writer fell behind.
public struct RecordingStatistics: Sendable, Equatable {
  /// The actions the recorder was handed.
  /// - Complexity: O(1).
  public var actions = 0
  /// The actions written, with or without their state.
  /// - Complexity: O(1).
  public var writtenActions = 0
  /// The actions written without their state (`stateDropped`).
  /// - Complexity: O(1).
  public var droppedStates = 0
  /// The actions not written at all (in gap lines).
  /// - Complexity: O(1).
  public var droppedActions = 0
  /// The most actions that waited for the writer at once.
  /// - Complexity: O(1).
  public var mostPendingActions = 0
  /// The most states that waited for the writer at once.
  /// - Complexity: O(1).
  public var mostPendingStates = 0

  /// No actions yet.
  /// - Complexity: O(1).
  public init() {}
}
