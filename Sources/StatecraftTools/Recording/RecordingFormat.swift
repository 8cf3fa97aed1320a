/// The file format of recordings: JSON Lines that any tool can read without the app's code.
///
/// Version 2, which ``ActionRecorder`` writes, starts with a header line, then holds one line per
/// action, in the order the store reduced them:
///
/// ```json
/// {"format":"statecraft-recording","snapshotInterval":1000,"startedAt":1764100000.25,"stateType":"Films.AppState","version":2}
/// {"index":0,"payload":null,"state":{"films":[],"isLoading":false},"time":0.0001,"type":"Statecraft.StatecraftInit"}
/// {"changes":[[2,["isLoading"],true]],"index":1,"payload":{"load":{}},"time":0.0123,"type":"Films.FilmsAction"}
/// {"index":2,"payload":{"loaded":{"_0":[]}},"stateDropped":true,"time":0.0125,"type":"Films.FilmsAction"}
/// {"gap":{"count":500,"from":3},"changes":[[2,["isLoading"],false]]}
/// ```
///
/// The header: `format` is always `"statecraft-recording"`; `version` is 2; `stateType` is the
/// state's qualified type name, or `null` when the state is not `Encodable` (no line then holds
/// a state); `startedAt` is the wall-clock time the recording started, in seconds since 1970;
/// `snapshotInterval` is how many states lie at most between two full snapshots; `redacted` is
/// `true` when some values were replaced by `"<redacted>"`.
///
/// An action line: `index` counts the actions the recorder saw, from 0, dropped ones included;
/// `time` is in seconds since the start; `type` is the action's qualified type name; `payload`
/// is the action as JSON when its type is registered in the ``ActionRegistry``, else `null`
/// (the action cannot be replayed). Then the state after the action, as one of:
/// - `state`: the whole state, as `JSONEncoder` writes it (keys sorted). The first state of a
///   recording is written whole, and every `snapshotInterval`-th after it, so that a reader can
///   start anywhere.
/// - `changes`: what turns the last state written in the file into this one, as
///   `[kind, path, value]` triples: kind 0 added, 1 removed, 2 changed; the path lists object
///   keys (strings) and array indices (numbers); a removed array element is spliced out, so
///   later indices move down; `value` is `null` for a removal.
/// - `stateDropped: true`: the state was not written, because the writer fell behind (see
///   below). The next state written is relative to the last state written, as always.
/// - `stateOmitted: true`: the state was not taken, as the stream's owner chose; a live
///   inspection (`LiveInspection`) sends at most one state a frame while the app dispatches
///   faster, and the state after the last action of a burst. Relative to it, as after
///   `stateDropped`. A recorder never omits a state.
/// - `stateError`: why the state could not be encoded (a non-finite number); the next state
///   is written whole.
///
/// The first action line may also hold `initial`: the state before that action, for a store
/// created with a state (a store created without one dispatches `StatecraftInit` first, whose
/// line holds the initial state).
///
/// A gap line, `{"gap":{"from":I,"count":N}}`, says that the actions with indices `I` to
/// `I + N − 1` were not written at all; its `state` or `changes`, if any, give the state after
/// the last of them.
///
/// Values whose path the recorder's `redacting` function names are written as the string
/// `"<redacted>"`; paths are keys and indices joined by dots (`"session.token"`), and an action's
/// paths start with `action` (`"action.login.password"`), as the logging middleware names them.
///
/// Version 1, written before the header existed, holds action lines with `index`, `time`,
/// `type` and `payload` only; ``Recording`` still reads it.
public enum RecordingFormat {
  /// The `format` field of a header line.
  /// - Complexity: O(1).
  public static let name = "statecraft-recording"

  /// The version ``ActionRecorder`` writes.
  /// - Complexity: O(1).
  public static let currentVersion = 2

  /// The header line: the format, its version and the state's type.
  public struct Header: Sendable, Equatable {
    /// The format's version: 2; 1 for a recording without a header.
    /// - Complexity: O(1).
    public var version: Int
    /// The state's qualified type name, or `nil` when the recording holds no states.
    /// - Complexity: O(1).
    public var stateType: String?
    /// When the recording started, in seconds since 1970.
    /// - Complexity: O(1).
    public var startedAt: Double?
    /// How many states lie at most between two full snapshots.
    /// - Complexity: O(1).
    public var snapshotInterval: Int?
    /// Whether values were replaced by `"<redacted>"`.
    /// - Complexity: O(1).
    public var isRedacted: Bool
    /// The qualified names of the action types the app can decode: what a live inspection's
    /// header offers the page to dispatch; recordings leave it empty.
    package var actionTypes: [String] = []

    /// Creates a header.
    ///
    /// - Parameters:
    ///   - version: The format's version.
    ///   - stateType: The state's qualified type name, or `nil` when states are not recorded.
    ///   - startedAt: When the recording started, in seconds since 1970.
    ///   - snapshotInterval: How many states lie at most between two full snapshots.
    ///   - isRedacted: Whether values were replaced by `"<redacted>"`.
    /// - Complexity: O(1).
    public init(
      version: Int = RecordingFormat.currentVersion, stateType: String?, startedAt: Double?,
      snapshotInterval: Int?, isRedacted: Bool = false
    ) {
      self.version = version
      self.stateType = stateType
      self.startedAt = startedAt
      self.snapshotInterval = snapshotInterval
      self.isRedacted = isRedacted
    }

    /// The header as a JSON object.
    package var json: JSONValue {
      var object: [String: JSONValue] = [
        "format": .string(RecordingFormat.name), "version": .integer(Int64(version)),
        "stateType": stateType.map(JSONValue.string) ?? .null,
      ]
      if let startedAt { object["startedAt"] = .number(startedAt) }
      if let snapshotInterval { object["snapshotInterval"] = .integer(Int64(snapshotInterval)) }
      if isRedacted { object["redacted"] = .bool(true) }
      if !actionTypes.isEmpty { object["actionTypes"] = .array(actionTypes.map(JSONValue.string)) }
      return .object(object)
    }

    /// Reads a header line, or returns `nil` when `json` is not one.
    package init?(json: JSONValue) {
      guard case .object(let object) = json, object["format"] == .string(RecordingFormat.name),
        case .integer(let wide) = object["version"], let version = Int(exactly: wide)
      else { return nil }
      self.version = version
      if case .string(let type) = object["stateType"] { stateType = type } else { stateType = nil }
      switch object["startedAt"] {
      case .number(let value): startedAt = value
      case .integer(let value): startedAt = Double(value)
      default: startedAt = nil
      }
      if case .integer(let value) = object["snapshotInterval"] {
        snapshotInterval = Int(exactly: value)
      } else {
        snapshotInterval = nil
      }
      isRedacted = object["redacted"] == .bool(true)
      if case .array(let names)? = object["actionTypes"] {
        actionTypes = names.compactMap { name in
          if case .string(let name) = name { name } else { nil }
        }
      }
    }
  }
}

/// What a line of a recording says of the state after its action.
package enum RecordedState: Sendable, Equatable {
  /// The recording holds no states (format 1, or a state that is not `Encodable`).
  case none
  /// The whole state.
  case snapshot(JSONValue)
  /// What turns the last state written into this one.
  case changes([JSONChange])
  /// The state was not written: the writer fell behind.
  case dropped
  /// The state was not taken: a live inspection sends at most one state a frame.
  case omitted
  /// The state could not be encoded.
  case failed(String)

  /// The state written on a line, from its fields.
  package init(line object: [String: JSONValue]) throws(RecordingLineError) {
    if let state = object["state"] {
      self = .snapshot(state)
    } else if let changes = object["changes"] {
      guard case .array(let patches) = changes else {
        throw RecordingLineError("changes is not an array")
      }
      var list: [JSONChange] = []
      list.reserveCapacity(patches.count)
      for patch in patches {
        guard let change = JSONChange(patch: patch) else {
          throw RecordingLineError("a change is not [kind, path, value]")
        }
        list.append(change)
      }
      self = .changes(list)
    } else if object["stateDropped"] == .bool(true) {
      self = .dropped
    } else if object["stateOmitted"] == .bool(true) {
      self = .omitted
    } else if case .string(let reason) = object["stateError"] {
      self = .failed(reason)
    } else {
      self = .none
    }
  }

  /// The fields that say it on a line.
  package func write(into object: inout [String: JSONValue]) {
    switch self {
    case .none: break
    case .snapshot(let state): object["state"] = state
    case .changes(let changes): object["changes"] = .array(changes.map(\.patch))
    case .dropped: object["stateDropped"] = .bool(true)
    case .omitted: object["stateOmitted"] = .bool(true)
    case .failed(let reason): object["stateError"] = .string(reason)
    }
  }
}

/// The actions a gap line says were not written, read from its `gap` object and checked: the
/// numbers come from a file or a connection, and name actions that can exist only when `from` is
/// at least 0, `count` at least 1, and the last index, `from + count − 1`, an `Int`.
package struct RecordedGap: Sendable, Equatable {
  /// The index of the first action dropped.
  package let from: Int
  /// How many actions were dropped.
  package let count: Int

  /// Reads the `gap` object of a line.
  package init(line object: [String: JSONValue]) throws(RecordingLineError) {
    guard case .object(let gap)? = object["gap"], case .integer(let from) = gap["from"],
      case .integer(let count) = gap["count"]
    else { throw RecordingLineError("a gap without from and count") }
    guard let from = Int(exactly: from), let count = Int(exactly: count), from >= 0, count >= 1,
      from <= Int.max - (count - 1)
    else {
      throw RecordingLineError(
        "a gap of \(count) actions from index \(from), which no recorder writes: from is at "
          + "least 0, count at least 1, and from + count - 1 at most \(Int.max)")
    }
    self.from = from
    self.count = count
  }

  /// "3 actions (index 4 to 6)", for any numbers: where the last index is not an `Int`, the
  /// range is left open instead of computed.
  package static func describe(from: Int, count: Int) -> String {
    guard from >= 0, count >= 1, from <= Int.max - (count - 1) else {
      return "\(count) actions (index \(from) on)"
    }
    return "\(count) actions (index \(from) to \(from + (count - 1)))"
  }
}

/// Why a line is not a line of a recording.
package struct RecordingLineError: Error, CustomStringConvertible {
  package let description: String
  init(_ description: String) { self.description = description }
}
