import Foundation
import Statecraft
import StatecraftPrimitives

#if canImport(os)
  import os
#endif

/// Where the logging middleware writes.
public struct LogSink: Sendable {
  let write: @Sendable (String) -> Void

  /// Prints each line to standard output.
  /// - Complexity: O(1).
  public static let print = LogSink { Swift.print($0) }

  /// Hands each line to `write`.
  ///
  /// - Parameter write: Receives each line.
  /// - Returns: The sink.
  /// - Complexity: O(1).
  public static func closure(_ write: @escaping @Sendable (String) -> Void) -> LogSink {
    LogSink(write: write)
  }

  #if canImport(os)
    /// Writes each line to a unified-logging `Logger`, at the debug level.
    ///
    /// - Parameter logger: The logger.
    /// - Returns: The sink.
    @available(macOS 11, iOS 14, tvOS 14, watchOS 7, *)
    public static func logger(_ logger: Logger) -> LogSink {
      LogSink { line in logger.debug("\(line, privacy: .public)") }
    }
  #endif
}

/// Whether logging is on when a caller does not say: in debug builds only.
/// - Complexity: O(1).
public let loggingIsEnabledByDefault: Bool = {
  #if DEBUG
    true
  #else
    false
  #endif
}()

/// Creates a middleware that logs each action, the time the rest of the chain took, and what
/// changed in the state.
///
/// The tools' own actions are logged as what they do, numbering steps as the inspector's pages
/// do (`▸ live page: jump to #6`). An action the live page holds while it shows the app a past
/// state is logged once, when it is reduced on resume.
///
/// ```swift
/// let mainStore = Store(
///   reducer: appReducer, state: nil,
///   middleware: [createLoggingMiddleware(redacting: { $0.hasPrefix("session.") })]
/// )
/// // ▸ SetFilms  0.04 ms  films: 0 elements → 6 elements; isLoading: true → false
/// ```
///
/// - Parameters:
///   - sink: Where to write; defaults to standard output.
///   - isEnabled: Whether to log; by default only in debug builds. When off, the middleware
///     passes actions on without looking at them.
///   - isSensitive: Returns `true` for the paths whose values must not be written; they show as
///     `<redacted>`. State paths are property names joined by dots (`"session.token"`); action
///     paths start with `action` (`"action.token"` for a struct's property,
///     `"action.login.token"` for an enum case's labelled value).
/// - Returns: The middleware.
/// - Complexity: O(1) to build. When enabled, each action adds two reads of the state, a
///   description of the action and a comparison of the states' descriptions, through `Mirror`:
///   O(*a* + *s*) for an action of size *a* and states of size *s*.
public func createLoggingMiddleware<State: Sendable>(
  to sink: LogSink = .print,
  isEnabled: Bool = loggingIsEnabledByDefault,
  redacting isSensitive: @escaping @Sendable (_ path: String) -> Bool = { _ in false }
) -> Middleware<State> {
  guard isEnabled else { return { _, _ in { next in next } } }
  return { _, getState in
    { next in
      { action in
        let before = getState()
        let start = MonotonicClock.now
        NotPresentMark.clear()
        next(action)
        let elapsed = MonotonicClock.now - start
        // Held by a tool (the live page shows a past state): logged when it is reduced.
        let tool = action as? any ToolAction
        guard tool != nil || !NotPresentMark.isSet else { return }
        let after = getState()
        let shown =
          tool?.toolDescription ?? describe(action, path: "action", isSensitive: isSensitive)
        var line = "▸ \(shown)  \(format(elapsed))"
        if let before, let after {
          let changes = stateChanges(from: before, to: after, isSensitive: isSensitive)
          line += changes.isEmpty ? "  (no change)" : "  " + changes.joined(separator: "; ")
        }
        sink.write(line)
      }
    }
  }
}

private func format(_ nanoseconds: UInt64) -> String {
  String(format: "%.2f ms", Double(nanoseconds) / 1e6)
}

/// The properties that differ between two values, one level into nested structures, as
/// `path: old → new`.
func stateChanges<Value>(
  from old: Value, to new: Value, isSensitive: (String) -> Bool, prefix: String = "",
  depth: Int = 0
) -> [String] {
  let oldChildren = Mirror(reflecting: old).children
  let newChildren = Array(Mirror(reflecting: new).children)
  guard !newChildren.isEmpty, oldChildren.count == newChildren.count else {
    guard String(describing: old) != String(describing: new) else { return [] }
    let (was, now) = (summary(old), summary(new))
    let path = prefix.isEmpty ? "state" : prefix
    return isSensitive(path) ? ["\(path): <redacted>"] : ["\(path): \(was) → \(now)"]
  }
  var changes: [String] = []
  for (oldChild, newChild) in zip(oldChildren, newChildren) {
    let label = newChild.label ?? "?"
    let path = prefix.isEmpty ? label : "\(prefix).\(label)"
    guard String(describing: oldChild.value) != String(describing: newChild.value) else { continue }
    let (was, now) = (summary(oldChild.value), summary(newChild.value))
    if isSensitive(path) {
      changes.append("\(path): <redacted>")
    } else if depth < 1, Mirror(reflecting: newChild.value).displayStyle == .struct {
      changes += stateChanges(
        from: oldChild.value, to: newChild.value, isSensitive: isSensitive, prefix: path,
        depth: depth + 1)
    } else {
      changes.append("\(path): \(was) → \(now)")
    }
  }
  return changes
}

private func summary(_ value: Any) -> String {
  let mirror = Mirror(reflecting: value)
  if mirror.displayStyle == .collection || mirror.displayStyle == .set
    || mirror.displayStyle == .dictionary
  {
    return "\(mirror.children.count) elements"
  }
  let text = String(describing: value)
  return text.count > 60 ? String(text.prefix(60)) + "…" : text
}

/// Describes `value` as `String(describing:)` does, with the sensitive parts replaced.
func describe(_ value: Any, path: String, isSensitive: (String) -> Bool) -> String {
  if isSensitive(path) { return "<redacted>" }
  let mirror = Mirror(reflecting: value)
  guard !mirror.children.isEmpty else {
    return value is String ? String(reflecting: value) : String(describing: value)
  }
  func part(_ child: Mirror.Child, _ index: Int) -> String {
    let label = child.label ?? ".\(index)"
    let text = describe(child.value, path: "\(path).\(label)", isSensitive: isSensitive)
    return child.label.map { $0.hasPrefix(".") ? text : "\($0): \(text)" } ?? text
  }
  switch mirror.displayStyle {
  case .enum:
    guard let payload = mirror.children.first, let name = payload.label else {
      return String(describing: value)
    }
    let inner = describe(payload.value, path: "\(path).\(name)", isSensitive: isSensitive)
    let isTuple = Mirror(reflecting: payload.value).displayStyle == .tuple
    return isTuple ? "\(name)\(inner)" : "\(name)(\(inner))"
  case .tuple:
    return "(" + mirror.children.enumerated().map { part($1, $0) }.joined(separator: ", ") + ")"
  case .struct, .class:
    let name = String(describing: type(of: value))
    return name + "(" + mirror.children.enumerated().map { part($1, $0) }.joined(separator: ", ")
      + ")"
  default:
    return String(describing: value)
  }
}
