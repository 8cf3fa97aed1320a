import Foundation
import Statecraft

/// Splits JSON Lines arriving in blocks into lines and decodes each, holding one line at a time.
package struct LineReader {
  /// The action types to decode, or `nil` to read the actions as JSON only.
  let registry: ActionRegistry?
  let maximumLineLength: Int
  var header: RecordingFormat.Header?
  var initialState: JSONValue?
  var entries: [Recording.Entry] = []
  var gaps: [Recording.Gap] = []
  var problems: [Recording.Problem] = []
  var droppedStates = 0
  var stopped: Int?
  var lines: [String] = []
  private var line: [UInt8] = []
  private var number = 1

  /// The store's own first action: recorded, never replayed, since a store dispatches its own.
  package static let initTypeName = String(reflecting: StatecraftInit.self)

  init(registry: ActionRegistry?, maximumLineLength: Int) {
    self.registry = registry
    self.maximumLineLength = maximumLineLength
  }

  mutating func consume<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
    var rest = bytes[...]
    while stopped == nil, !rest.isEmpty {
      let end = rest.firstIndex(of: UInt8(ascii: "\n"))
      let piece = rest[..<(end ?? rest.endIndex)]
      if line.count + piece.count > maximumLineLength {
        stop(.lineTooLong(limit: maximumLineLength))
        return
      }
      line.append(contentsOf: piece)
      guard let end else { return }
      decodeLine()
      rest = rest[rest.index(after: end)...]
    }
  }

  /// Reads a last line that has no newline.
  mutating func finish() {
    if stopped == nil, !line.isEmpty { decodeLine() }
  }

  mutating func cut(limit: Int) {
    stop(.cut(limit: limit))
  }

  private mutating func stop(_ reason: Recording.Problem.Reason) {
    problems.append(Recording.Problem(line: number, reason: reason))
    stopped = number
  }

  private mutating func decodeLine() {
    defer {
      line.removeAll(keepingCapacity: true)
      if stopped == nil { number += 1 }
    }
    if line.isEmpty {
      lines.append("")
      return
    }
    let json: JSONValue
    do {
      json = try JSONValue.parse(line)
    } catch {
      stop(.unreadableLine("invalid JSON: \(error)"))
      return
    }
    guard case .object(let object) = json else {
      stop(.unreadableLine("not a JSON object"))
      return
    }
    if entries.isEmpty, gaps.isEmpty, header == nil, let header = RecordingFormat.Header(json: json)
    {
      guard header.version <= RecordingFormat.currentVersion else {
        stop(
          .unreadableLine(
            "format version \(header.version) is newer than this reader's "
              + "\(RecordingFormat.currentVersion); update Statecraft"))
        return
      }
      self.header = header
      lines.append(json.jsonText())
      return
    }
    if object["gap"] != nil {
      let gap: RecordedGap
      let state: RecordedState
      do throws(RecordingLineError) {
        gap = try RecordedGap(line: object)
        state = try RecordedState(line: object)
      } catch {
        stop(.unreadableLine("\(error)"))
        return
      }
      gaps.append(
        Recording.Gap(
          line: number, from: gap.from, count: gap.count, beforeEntry: entries.count,
          state: state))
      problems.append(
        Recording.Problem(line: number, reason: .actionsDropped(from: gap.from, count: gap.count)))
      lines.append("")
      return
    }
    guard case .string(let typeName) = object["type"], let index = object["index"]?.integerValue,
      let time = object["time"]?.doubleValue
    else {
      stop(.unreadableLine("not a recorded action: no type, index or time"))
      return
    }
    let state: RecordedState
    do {
      state = try RecordedState(line: object)
    } catch {
      stop(.unreadableLine("\(error)"))
      return
    }
    if entries.isEmpty, let initial = object["initial"] { initialState = initial }
    let payload = object["payload"].flatMap { $0 == .null ? nil : $0 }
    var action: (any Action)?
    if let payload, ActionNames.isLifecycle(typeName),
      case .object(let fields) = payload, fields["valueNotRecorded"] != nil
    {
      problems.append(Recording.Problem(line: number, reason: .notReplayable(typeName)))
    } else if let payload {
      if let registry, typeName != Self.initTypeName {
        if let decode = registry.decoder(for: typeName) {
          do {
            action = try decode(Data(payload.jsonText().utf8))
          } catch {
            stop(.unreadableLine("\(typeName): \(error)"))
            return
          }
        } else {
          problems.append(Recording.Problem(line: number, reason: .unknownType(typeName)))
        }
      }
    } else {
      problems.append(Recording.Problem(line: number, reason: .notReplayable(typeName)))
    }
    if header == nil {
      lines.append(String(decoding: line, as: UTF8.self))
    } else {
      // A generated test holds the actions; the states it checks are held apart.
      var actionLine = object
      for key in ["state", "changes", "stateDropped", "stateError", "initial"] {
        actionLine[key] = nil
      }
      lines.append(JSONValue.object(actionLine).jsonText())
    }
    if case .dropped = state { droppedStates += 1 }
    entries.append(
      Recording.Entry(
        line: number, time: time, typeName: typeName, action: action, payload: payload,
        index: index, state: state))
  }
}

extension JSONValue {
  /// The number, if this is one without a fraction that is an `Int` on this system.
  package var integerValue: Int? {
    switch self {
    case .integer(let value): Int(exactly: value)
    default: nil
    }
  }

  /// The number, if this is one.
  package var doubleValue: Double? {
    switch self {
    case .integer(let value): Double(value)
    case .number(let value): value
    default: nil
    }
  }
}
