import Foundation
import StatecraftTools

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
    Self.fill(
      Self.pageTemplate,
      with: [
        "__TITLE__": Self.escapeHTML(title), "__DATA__": pageData(),
        "__ACTION_VIEW__": Self.actionViewScript, "__LIVE__": "",
      ])
  }

  /// Writes the page to `file`, readable by its owner only (mode 0600), as recordings are: the page
  /// holds the whole session.
  ///
  /// The write is atomic: a crash leaves the old file or the new one.
  ///
  /// - Parameters:
  ///   - title: The page's title, usually the recording's name.
  ///   - file: Where to write it.
  /// - Throws: The file system's error if the file cannot be written.
  /// - Complexity: O(*n*) for *n* changes in the session.
  public func writeHTML(title: String, to file: URL) throws {
    try AtomicFile.write(Data(html(title: title).utf8), to: file)
  }

  /// `template` with each placeholder replaced by its text, in one pass: a replacement is never
  /// searched for placeholders.
  package static func fill(_ template: String, with replacements: [String: String]) -> String {
    var result = ""
    var rest = template[...]
    while let start = rest.range(of: "__") {
      guard
        let (placeholder, text) = replacements.first(where: {
          rest[start.lowerBound...].hasPrefix($0.key)
        })
      else {
        result += rest[..<start.upperBound]
        rest = rest[start.upperBound...]
        continue
      }
      result += rest[..<start.lowerBound]
      result += text
      rest = rest[rest.index(start.lowerBound, offsetBy: placeholder.count)...]
    }
    return result + rest
  }

  /// The session as the page reads it, safe inside the page's `<script>` element.
  ///
  /// Compact arrays rather than keyed objects, because a session may hold 100,000 actions; no
  /// string in it can end the element or change how the browser reads it (`JSONValue.jsonText`).
  func pageData() -> String {
    var types: [String] = []
    var titles: [String] = []
    var typeIndex: [String: Int] = [:]
    var actions: [JSONValue] = []
    var patches: [JSONValue] = []
    actions.reserveCapacity(steps.count)
    patches.reserveCapacity(steps.count)
    for step in steps {
      let index =
        typeIndex[step.key]
        ?? {
          types.append(step.key)
          titles.append(step.title)
          typeIndex[step.key] = types.count - 1
          return types.count - 1
        }()
      actions.append(
        .array([
          .integer(Int64(step.line)), .number(step.time), .integer(Int64(index)),
          step.label.map(JSONValue.string) ?? .null,
          step.index.map { .integer(Int64($0)) } ?? .null,
          step.payload ?? .null,
        ]))
      patches.append(step.changes.map { .array($0.map(\.patch)) } ?? .null)
    }
    let object: JSONValue = .object([
      "types": .array(types.map(JSONValue.string)),
      "titles": .array(titles.map(JSONValue.string)),
      "actions": .array(actions),
      "patches": .array(patches),
      "initial": initial,
      "checkpoints": .array(checkpoints.map { .array([.integer(Int64($0.step)), $0.state]) }),
      "hasStates": .bool(hasStates),
      "stateType": stateTypeName.map(JSONValue.string) ?? .null,
      "startedAt": startedAt.map(JSONValue.number) ?? .null,
      "problems": .array(problems.map { .string($0.description) }),
    ])
    return object.jsonText(scriptSafe: true)
  }

  package static func escapeHTML(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;")
      .replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
      .replacingOccurrences(of: "\"", with: "&quot;")
      .replacingOccurrences(of: "'", with: "&#39;")
  }
}
