import Statecraft

/// How the tools name an action: its type without module names, generics included
/// (`ThunkLifecycle<Array<Book>>`), and a thunk's lifecycle action by the thunk's name and phase
/// (`books/load · fulfilled`).
///
/// The inspector's list, its pages and `inspect` show these names; a live page's dispatch accepts
/// them back (``ActionRegistry/resolve(typeName:)``).
package enum ActionNames {
  /// How a qualified type name of a thunk's lifecycle action starts.
  static let lifecyclePrefix =
    String(reflecting: ThunkLifecycle<Int>.self).prefix { $0 != "<" }
    + "<"

  /// `name` with the module dropped from each qualified name in it: `NotesCore.NoteAction` is
  /// `NoteAction`, `Statecraft.ThunkLifecycle<Swift.Array<Shelf.Book>>` is
  /// `ThunkLifecycle<Array<Book>>`, and a nested `Shelf.Book.Action` is `Book.Action`.
  ///
  /// - Complexity: O(*n*) for a name of *n* characters.
  package static func shortTypeName(_ name: String) -> String {
    var result = ""
    var path: [Substring] = []
    var rest = name[...]
    func flush() {
      result += path.dropFirst(path.count > 1 ? 1 : 0).joined(separator: ".")
      path = []
    }
    while let first = rest.first {
      if first.isLetter || first == "_" {
        let identifier = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        path.append(identifier)
        rest = rest.dropFirst(identifier.count)
        if rest.first == ".", let next = rest.dropFirst().first, next.isLetter || next == "_" {
          rest = rest.dropFirst()
          continue
        }
        flush()
      } else {
        result.append(first)
        rest = rest.dropFirst()
      }
    }
    flush()
    return result
  }

  /// The names a page offers for `names`: each as shown, or whole where two share the shown
  /// name.
  ///
  /// - Complexity: O(*n*) for *n* names.
  package static func offered(_ names: [String]) -> [(shown: String, whole: String)] {
    var count: [String: Int] = [:]
    for name in names { count[shortTypeName(name), default: 0] += 1 }
    return names.map { name in
      let short = shortTypeName(name)
      return (count[short] == 1 ? short : name, name)
    }
  }

  /// Whether `typeName` names a thunk's lifecycle action.
  /// - Complexity: O(1).
  package static func isLifecycle(_ typeName: String) -> Bool {
    typeName.hasPrefix(lifecyclePrefix)
  }

  /// A step as a list shows it.
  package struct Shown: Sendable, Equatable {
    /// What the filter by type groups steps by: the type name, and for a lifecycle action the
    /// thunk's name and phase too.
    package var key: String
    /// The type's name as shown, or a lifecycle action's thunk name and phase.
    package var title: String
    /// What follows the title: the action's values; `""` for nothing; `nil` when the action
    /// cannot be replayed.
    package var label: String?

    package init(key: String, title: String, label: String?) {
      self.key = key
      self.title = title
      self.label = label
    }

    /// The title and the label on one line, as `inspect` lists a step.
    package var line: String {
      switch label {
      case nil: title + " (not replayable)"
      case ""?: title
      case let label?: title + " " + label
      }
    }
  }

  /// How a list shows an action of `typeName` recorded with `payload`.
  ///
  /// - Parameters:
  ///   - typeName: The qualified type name.
  ///   - payload: The action as JSON, or `nil` when it was recorded by name only.
  /// - Returns: Its filter key, title and label.
  /// - Complexity: O(*n*) for a payload of *n* bytes.
  package static func shown(typeName: String, payload: JSONValue?) -> Shown {
    if isLifecycle(typeName), case .object(let object)? = payload,
      case .string(let name)? = object["name"], case .string(let phase)? = object["phase"]
    {
      let title = "\(name) · \(phase)"
      var detail = ""
      if let value = object["value"] {
        detail = label(of: value)
      } else if case .string(let reason)? = object["valueNotRecorded"] {
        detail = "(value not recorded: \(reason))"
      } else if case .object(let error)? = object["error"],
        case .string(let description)? = error["description"]
      {
        detail = description
      }
      return Shown(key: typeName + " " + title, title: title, label: detail)
    }
    if typeName == LineReader.initTypeName {
      return Shown(key: typeName, title: shortTypeName(typeName), label: "")
    }
    return Shown(
      key: typeName, title: shortTypeName(typeName),
      label: payload.map { label(of: $0) })
  }

  /// An action's JSON as a short label: `add("Buy milk")` for an enum case with unlabelled
  /// values, `increment` for one without, `login(user: "ana")` for labelled ones, the JSON
  /// itself otherwise; at most 300 characters.
  package static func label(of payload: JSONValue) -> String {
    var text = payload.jsonText()
    if case .object(let object) = payload, object.count == 1, let (name, value) = object.first,
      case .object(let fields) = value
    {
      let keys = fields.keys.sorted { lhs, rhs in
        // `_0`, `_1`, … in order of their number, labels after, alphabetically.
        switch (Int(lhs.dropFirst()), Int(rhs.dropFirst())) {
        case (let left?, let right?) where lhs.hasPrefix("_") && rhs.hasPrefix("_"):
          return left < right
        default: return lhs < rhs
        }
      }
      let parts = keys.map { key -> String in
        let value = fields[key]?.jsonText() ?? "null"
        return key.hasPrefix("_") && Int(key.dropFirst()) != nil ? value : "\(key): \(value)"
      }
      text = parts.isEmpty ? name : "\(name)(\(parts.joined(separator: ", ")))"
    }
    return text.count > 300 ? String(text.prefix(300)) + "…" : text
  }
}
