import Foundation
import Statecraft
import StatecraftTools

/// A recording replayed through the app's reducer: every action with the state after it, ready
/// to be shown in a browser or turned into a regression test.
///
/// ```swift
/// let recording = try Recording(contentsOf: sessionURL, registry: appActions)
/// let report = try SessionReport(recording: recording, reducer: appReducer)
/// try report.html(title: "Bug 1234").write(to: pageURL, atomically: true, encoding: .utf8)
/// ```
///
/// `swift run inspect SESSION.jsonl --html OUT.html` does this for the examples' recordings.
/// The page is one self-contained file: no network access, no external script, font or style.
public struct SessionReport: Sendable {
  /// One action of the recording and what it changed.
  package struct Step: Sendable {
    package let line: Int
    package let time: Double
    package let typeName: String
    /// What the filter by type groups it by, and its type as shown, or its thunk's name and
    /// phase for a lifecycle action (``ActionNames``).
    package let key: String
    package let title: String
    /// What follows the title: the action's values, `""` for nothing, `nil` when it could not be
    /// replayed.
    package let label: String?
    /// What the action changed, or `nil` when the recording does not say (its state was
    /// dropped, or the recording holds no states).
    package let changes: [JSONChange]?
    /// The index the recorder gave the action; `nil` for a gap.
    package var index: Int?
    /// The action as the recording holds it, as JSON; `nil` for an action recorded by name
    /// only, and for a gap.
    package let payload: JSONValue?

    package init(
      line: Int, time: Double, typeName: String, shown: ActionNames.Shown,
      changes: [JSONChange]?, index: Int? = nil, payload: JSONValue? = nil
    ) {
      self.line = line
      self.time = time
      self.typeName = typeName
      key = shown.key
      title = shown.title
      label = shown.label
      self.changes = changes
      self.index = index
      self.payload = payload
    }

    /// The step on one line, as `inspect` lists it: `NoteAction add("milk")`,
    /// `books/load · fulfilled 3`.
    package var text: String {
      ActionNames.Shown(key: key, title: title, label: label).line
    }
  }

  /// The state before the first action, as JSON.
  let initial: JSONValue
  package let steps: [Step]
  /// The state after some steps, in order of step, so a page can show any step quickly: about
  /// every `checkpointInterval`-th.
  let checkpoints: [(step: Int, state: JSONValue)]
  /// How many steps lie between two checkpoints: at least 1,000, more for large states, so
  /// that the checkpoints of a session hold about 32 MB of JSON at most.
  let checkpointInterval: Int
  /// The lines of the recording that were read, in order, for the regression test.
  let lines: [String]
  /// The state type's qualified name, if known.
  let stateTypeName: String?
  /// Whether the report shows states: false for a recording that holds none, read without the
  /// app's reducer.
  package let hasStates: Bool
  /// When the recording started, in seconds since 1970, if it says.
  let startedAt: Double?
  /// Whether the recording lost actions or states: then a test cannot check every step.
  package let isIncomplete: Bool
  package let problems: [Recording.Problem]

  static let minimumCheckpointInterval = 1_000
  static let checkpointBudget = 32 << 20

  /// Steps between checkpoints, so that a session's checkpoints hold about `checkpointBudget`
  /// bytes at most.
  static func checkpointInterval(stateBytes: Int, steps: Int) -> Int {
    max(minimumCheckpointInterval, stateBytes * steps / checkpointBudget)
  }

  /// Replays `recording` through `reducer` and keeps what each action changed in the state.
  ///
  /// Actions the recording holds by name only are listed and change nothing.
  ///
  /// - Parameters:
  ///   - recording: The recording.
  ///   - reducer: The app's reducer.
  ///   - initialState: The state to start from, or `nil` for the reducer's own.
  /// - Throws: `EncodingError` if a state cannot be encoded as JSON.
  /// - Complexity: Per action, the reducer and the parts of the state it changed: a part equal
  ///   to the one before (for an `Equatable` type) is compared, not encoded again, so a session
  ///   takes time in proportion to its changes, plus one comparison for each element of a
  ///   collection that changed. The report keeps the changes, and the whole state only at
  ///   checkpoints.
  public init<State: Encodable & Sendable>(
    recording: Recording, reducer: @escaping Reducer<State>, initialState: State? = nil
  ) throws {
    var state = initialState ?? reducer(StatecraftInit(), nil)
    var tracker = StateChangeTracker<State>()
    _ = try tracker.track(state)
    initial = tracker.json
    let stateBytes = try JSONEncoder().encode(initial).count
    let interval = Self.checkpointInterval(stateBytes: stateBytes, steps: recording.entries.count)
    var steps: [Step] = []
    var checkpoints: [(step: Int, state: JSONValue)] = []
    steps.reserveCapacity(recording.entries.count)
    for (offset, entry) in recording.entries.enumerated() {
      var changes: [JSONChange] = []
      if let action = entry.action {
        state = reducer(action, state)
        changes = try tracker.track(state)
      }
      var shown = ActionNames.shown(typeName: entry.typeName, payload: entry.payload)
      if entry.action == nil, entry.typeName != LineReader.initTypeName {
        shown.label = nil
      } else if !ActionNames.isLifecycle(entry.typeName) {
        shown.label = entry.action.map { String(describing: $0) }
      }
      steps.append(
        Step(
          line: entry.line, time: entry.time, typeName: entry.typeName, shown: shown,
          changes: changes, index: entry.index, payload: entry.payload))
      if (offset + 1) % interval == 0 { checkpoints.append((offset + 1, tracker.json)) }
    }
    self.steps = steps
    self.checkpoints = checkpoints
    checkpointInterval = interval
    lines = recording.lines
    stateTypeName = String(reflecting: State.self)
    hasStates = true
    startedAt = recording.header?.startedAt
    isIncomplete = false
    // The init action is never replayable, by design: not a problem of the recording.
    let initTypeName = String(reflecting: StatecraftInit.self)
    problems = recording.problems.filter { $0.reason != .notReplayable(initTypeName) }
  }

  /// How many actions the recording holds.
  /// - Complexity: O(1).
  public var actionCount: Int { steps.count }
}
