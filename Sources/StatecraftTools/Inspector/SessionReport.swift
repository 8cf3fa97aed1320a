import Foundation
import Statecraft

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
  struct Step: Sendable {
    let line: Int
    let time: Double
    let typeName: String
    /// The action as `String(describing:)` shows it, or `nil` when it could not be replayed.
    let label: String?
    let changes: [JSONChange]
  }

  /// The state before the first action, as JSON.
  let initial: JSONValue
  let steps: [Step]
  /// The state after every `checkpointInterval`-th step, so a page can show any step quickly.
  let checkpoints: [Int: JSONValue]
  /// How many steps lie between two checkpoints: at least 1,000, more for large states, so
  /// that the checkpoints of a session hold about 32 MB of JSON at most.
  let checkpointInterval: Int
  /// Replays the session again and returns the JSON text of the state after each step, for the
  /// regression test; not kept, because a long session of a large state would not fit.
  let stateTexts: @Sendable () throws -> [String]
  /// The state type's qualified name.
  let stateTypeName: String
  let problems: [Recording.Problem]

  static let minimumCheckpointInterval = 1_000
  static let checkpointBudget = 32 << 20

  /// Steps between checkpoints, so that a session's checkpoints hold about `checkpointBudget`
  /// bytes at most.
  static func checkpointInterval(stateBytes: Int, steps: Int) -> Int {
    max(minimumCheckpointInterval, stateBytes * steps / checkpointBudget)
  }

  /// Replays `recording` through `reducer` and keeps the state after each action.
  ///
  /// Actions the recording holds by name only are listed and change nothing.
  ///
  /// - Parameters:
  ///   - recording: The recording.
  ///   - reducer: The app's reducer.
  ///   - initialState: The state to start from, or `nil` for the reducer's own.
  /// - Throws: `EncodingError` if a state cannot be encoded as JSON.
  /// - Complexity: O(*n* × *s*) time for *n* actions and states of size *s*; the report keeps
  ///   the changes, and the whole state only at checkpoints.
  public init<State: Encodable & Sendable>(
    recording: Recording, reducer: @escaping Reducer<State>, initialState: State? = nil
  ) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let decoder = JSONDecoder()
    let start = initialState ?? reducer(StatecraftInit(), nil)
    var state = start
    let first = try encoder.encode(state)
    var previous = try decoder.decode(JSONValue.self, from: first)
    initial = previous
    let interval = Self.checkpointInterval(stateBytes: first.count, steps: recording.entries.count)
    var steps: [Step] = []
    var checkpoints: [Int: JSONValue] = [:]
    steps.reserveCapacity(recording.entries.count)
    for (offset, entry) in recording.entries.enumerated() {
      if let action = entry.action { state = reducer(action, state) }
      let next = try decoder.decode(JSONValue.self, from: encoder.encode(state))
      steps.append(
        Step(
          line: entry.line, time: entry.time, typeName: entry.typeName,
          label: entry.action.map { String(describing: $0) },
          changes: JSONChange.between(previous, next)))
      if (offset + 1) % interval == 0 { checkpoints[offset + 1] = next }
      previous = next
    }
    self.steps = steps
    self.checkpoints = checkpoints
    checkpointInterval = interval
    stateTexts = {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      var state = start
      return try recording.entries.map { entry in
        if let action = entry.action { state = reducer(action, state) }
        return String(decoding: try encoder.encode(state), as: UTF8.self)
      }
    }
    stateTypeName = String(reflecting: State.self)
    // The init action is never replayable, by design: not a problem of the recording.
    let initTypeName = String(reflecting: StatecraftInit.self)
    problems = recording.problems.filter { $0.reason != .notReplayable(initTypeName) }
  }

  /// How many actions the recording holds.
  /// - Complexity: O(1).
  public var actionCount: Int { steps.count }
}

/// One difference between two JSON values, at a path of object keys and array indices.
struct JSONChange: Sendable, Equatable {
  enum Kind: String, Sendable {
    case added, removed, changed
  }

  let path: [JSONPathComponent]
  let kind: Kind
  /// The new value; `nil` when removed.
  let value: JSONValue?

  /// The changes that turn `old` into `new`: object keys and array elements one by one, so a
  /// page can show collections by size and the elements that changed.
  static func between(_ old: JSONValue, _ new: JSONValue) -> [JSONChange] {
    var changes: [JSONChange] = []
    diff(old, new, at: [], into: &changes)
    return changes
  }

  private static func diff(
    _ old: JSONValue, _ new: JSONValue, at path: [JSONPathComponent],
    into changes: inout [JSONChange]
  ) {
    if old == new { return }
    switch (old, new) {
    case (.object(let before), .object(let after)):
      for key in Set(before.keys).union(after.keys).sorted() {
        let here = path + [.key(key)]
        switch (before[key], after[key]) {
        case (let was?, let now?): diff(was, now, at: here, into: &changes)
        case (nil, let now?): changes.append(JSONChange(path: here, kind: .added, value: now))
        case (_?, nil): changes.append(JSONChange(path: here, kind: .removed, value: nil))
        case (nil, nil): break
        }
      }
    case (.array(let before), .array(let after)):
      for index in 0..<min(before.count, after.count) {
        diff(before[index], after[index], at: path + [.index(index)], into: &changes)
      }
      for index in before.count..<max(before.count, after.count) {
        changes.append(JSONChange(path: path + [.index(index)], kind: .added, value: after[index]))
      }
      // Removed from the end first, so that applying the changes in order keeps indices valid.
      for index in (after.count..<max(before.count, after.count)).reversed() {
        changes.append(JSONChange(path: path + [.index(index)], kind: .removed, value: nil))
      }
    default:
      changes.append(JSONChange(path: path, kind: .changed, value: new))
    }
  }
}

enum JSONPathComponent: Sendable, Equatable {
  case key(String)
  case index(Int)
}
