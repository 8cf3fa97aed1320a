import Foundation

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
  package var patch: JSONValue {
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
  package init?(patch: JSONValue) {
    guard case .array(let parts) = patch, parts.count == 3, case .integer(let kind) = parts[0],
      case .array(let path) = parts[1]
    else { return nil }
    var components: [JSONPathComponent] = []
    for component in path {
      switch component {
      case .string(let key): components.append(.key(key))
      case .integer(let index):
        // An index that is not an `Int` here (a 32-bit system) names no element.
        guard let index = Int(exactly: index) else { return nil }
        components.append(.index(index))
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
  /// The steps whose state is not known (a live session's state not sent during a burst),
  /// written `null`: a replay checks them with the next known step, whose changes are relative to
  /// the last state known.
  package var unknown: Set<Int>

  package init(initial: JSONValue, steps: [[JSONChange]], unknown: Set<Int> = []) {
    self.initial = initial
    self.steps = steps
    self.unknown = unknown
  }

  /// The log of steps with their changes, or `nil` where not known.
  package init(initial: JSONValue, steps: [[JSONChange]?]) {
    self.init(
      initial: initial, steps: steps.map { $0 ?? [] },
      unknown: Set(steps.indices.filter { steps[$0] == nil }))
  }

  /// The text, a line for the start, one for each step, and one for the end.
  package var textLines: [String] {
    var lines = [#"{"format":\#(Self.format),"initial":\#(initial.jsonText()),"steps":["#]
    lines.reserveCapacity(steps.count + 2)
    for (index, changes) in steps.enumerated() {
      let text = unknown.contains(index) ? "null" : JSONValue.array(changes.map(\.patch)).jsonText()
      lines.append(text + (index < steps.count - 1 ? "," : ""))
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
    unknown = Set(steps.indices.filter { steps[$0] == .null })
    self.steps = try steps.enumerated().map { index, step in
      if step == .null { return [] }
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
