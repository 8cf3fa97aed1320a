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
  /// The lines of the recording that were read, in order, for the regression test.
  let lines: [String]
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
    var checkpoints: [Int: JSONValue] = [:]
    steps.reserveCapacity(recording.entries.count)
    for (offset, entry) in recording.entries.enumerated() {
      var changes: [JSONChange] = []
      if let action = entry.action {
        state = reducer(action, state)
        changes = try tracker.track(state)
      }
      steps.append(
        Step(
          line: entry.line, time: entry.time, typeName: entry.typeName,
          label: entry.action.map { String(describing: $0) }, changes: changes))
      if (offset + 1) % interval == 0 { checkpoints[offset + 1] = tracker.json }
    }
    self.steps = steps
    self.checkpoints = checkpoints
    checkpointInterval = interval
    lines = recording.lines
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
package struct JSONChange: Sendable, Equatable {
  package enum Kind: String, Sendable {
    case added, removed, changed
  }

  package let path: [JSONPathComponent]
  package let kind: Kind
  /// The new value; `nil` when removed.
  package let value: JSONValue?

  /// The changes that turn `old` into `new`: object keys and array elements one by one, so a
  /// page can show collections by size and the elements that changed.
  package static func between(_ old: JSONValue, _ new: JSONValue) -> [JSONChange] {
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

package enum JSONPathComponent: Sendable, Equatable {
  case key(String)
  case index(Int)
}

extension JSONChange {
  /// The change as the page and a generated test hold it: `[kind, path, value]`, with kind 0
  /// added, 1 removed, 2 changed, and the path's keys as strings and indices as numbers.
  var patch: JSONValue {
    let kind: Int64 =
      switch self.kind {
      case .added: 0
      case .removed: 1
      case .changed: 2
      }
    let path: [JSONValue] = self.path.map {
      switch $0 {
      case .key(let key): .string(key)
      case .index(let index): .integer(Int64(index))
      }
    }
    return .array([.integer(kind), .array(path), value ?? .null])
  }

  /// Reads a change written as ``patch``.
  init?(patch: JSONValue) {
    guard case .array(let parts) = patch, parts.count == 3, case .integer(let kind) = parts[0],
      case .array(let path) = parts[1]
    else { return nil }
    var components: [JSONPathComponent] = []
    for component in path {
      switch component {
      case .string(let key): components.append(.key(key))
      case .integer(let index): components.append(.index(Int(index)))
      default: return nil
      }
    }
    switch kind {
    case 0: self.init(path: components, kind: .added, value: parts[2])
    case 1: self.init(path: components, kind: .removed, value: nil)
    case 2: self.init(path: components, kind: .changed, value: parts[2])
    default: return nil
    }
  }

  /// The change in words, for a failure message: `todos.2.isDone changed to true`.
  package var sentence: String {
    let place =
      path.isEmpty
      ? "the state"
      : path.map {
        switch $0 {
        case .key(let key): key
        case .index(let index): String(index)
        }
      }.joined(separator: ".")
    let text = (value ?? .null).jsonText()
    switch kind {
    case .added: return "\(place) added: \(text)"
    case .removed: return "\(place) removed"
    case .changed: return "\(place) changed to \(text)"
    }
  }
}

/// The states of a session as its initial state and what each step changed: how a generated test
/// holds the states it expects.
///
/// Its text is JSON, one step a line: `{"format":1,"initial":…,"steps":[` then each step's
/// changes as an array of ``JSONChange/patch`` values, then `]}`.
package struct StateChangeLog: Equatable, Sendable {
  package static let format = 1

  package var initial: JSONValue
  package var steps: [[JSONChange]]

  package init(initial: JSONValue, steps: [[JSONChange]]) {
    self.initial = initial
    self.steps = steps
  }

  /// The text, a line for the start, one for each step, and one for the end.
  package var textLines: [String] {
    var lines = [#"{"format":\#(Self.format),"initial":\#(initial.jsonText()),"steps":["#]
    lines.reserveCapacity(steps.count + 2)
    for (index, changes) in steps.enumerated() {
      lines.append(
        JSONValue.array(changes.map(\.patch)).jsonText() + (index < steps.count - 1 ? "," : ""))
    }
    lines.append("]}")
    return lines
  }

  /// The error for text that is not a change log of this format.
  package struct UnreadableError: Error, CustomStringConvertible {
    package let description: String
  }

  /// Reads the text ``textLines`` wrote.
  package init(text: String) throws {
    guard
      case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    else { throw UnreadableError(description: "the change log is not a JSON object") }
    guard case .integer(let format) = object["format"], format == Self.format else {
      throw UnreadableError(
        description: "the change log's format is not \(Self.format); generate the test again")
    }
    guard let initial = object["initial"], case .array(let steps) = object["steps"] else {
      throw UnreadableError(description: "the change log has no initial state or no steps")
    }
    self.initial = initial
    self.steps = try steps.enumerated().map { index, step in
      guard case .array(let patches) = step else {
        throw UnreadableError(description: "step \(index + 1) of the change log is not an array")
      }
      return try patches.map {
        guard let change = JSONChange(patch: $0) else {
          throw UnreadableError(
            description: "step \(index + 1) of the change log holds an unreadable change")
        }
        return change
      }
    }
  }
}
