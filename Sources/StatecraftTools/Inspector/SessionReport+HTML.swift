import Foundation

extension SessionReport {
  /// The page that shows the session: one self-contained HTML file.
  ///
  /// It lists the actions with their time and line (only the rows on screen are drawn, so it
  /// stays responsive with 100,000 actions), shows the state after the selected action as a
  /// collapsible tree with what changed against the previous state highlighted (added, removed,
  /// changed; collections by size and their changed elements), has a scrubber and keys to step
  /// through time (← → or j k, Home, End), a filter by action type, and lists the recording's
  /// problems. `#step=N` in the address opens it at step N.
  ///
  /// - Parameter title: The page's title, usually the recording's name.
  /// - Returns: The HTML text.
  /// - Complexity: O(*n*) for *n* changes in the session.
  public func html(title: String) -> String {
    let page = Self.pageTemplate
      .replacingOccurrences(of: "__TITLE__", with: Self.escapeHTML(title))
    // `</` cannot end the script element from inside a JSON string once written as `<\/`.
    let data = pageData().replacingOccurrences(of: "</", with: "<\\/")
    return page.replacingOccurrences(of: "__DATA__", with: data)
  }

  /// The session as the page reads it: compact arrays rather than keyed objects, because a
  /// session may hold 100,000 actions.
  func pageData() -> String {
    var types: [String] = []
    var typeIndex: [String: Int] = [:]
    var actions: [JSONValue] = []
    var patches: [JSONValue] = []
    actions.reserveCapacity(steps.count)
    patches.reserveCapacity(steps.count)
    for step in steps {
      let index =
        typeIndex[step.typeName]
        ?? {
          types.append(step.typeName)
          typeIndex[step.typeName] = types.count - 1
          return types.count - 1
        }()
      actions.append(
        .array([
          .integer(Int64(step.line)), .number(step.time), .integer(Int64(index)),
          step.label.map(JSONValue.string) ?? .null,
        ]))
      patches.append(.array(step.changes.map(Self.patch)))
    }
    var checkpointObject: [String: JSONValue] = [:]
    for (step, state) in checkpoints { checkpointObject[String(step)] = state }
    let object: JSONValue = .object([
      "types": .array(types.map(JSONValue.string)),
      "actions": .array(actions),
      "patches": .array(patches),
      "initial": initial,
      "checkpointInterval": .integer(Int64(checkpointInterval)),
      "checkpoints": .object(checkpointObject),
      "problems": .array(problems.map { .string($0.description) }),
    ])
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(object)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }

  private static func patch(_ change: JSONChange) -> JSONValue {
    let kind: Int64 =
      switch change.kind {
      case .added: 0
      case .removed: 1
      case .changed: 2
      }
    let path: [JSONValue] = change.path.map {
      switch $0 {
      case .key(let key): .string(key)
      case .index(let index): .integer(Int64(index))
      }
    }
    return .array([.integer(kind), .array(path), change.value ?? .null])
  }

  static func escapeHTML(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;")
      .replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
      .replacingOccurrences(of: "\"", with: "&quot;")
  }
}
