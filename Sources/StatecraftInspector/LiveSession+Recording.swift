import Statecraft
import StatecraftTools

// The live session as a recording file, in the format `inspect FILE` and `Recording` read: what
// the page's Export button downloads.

extension LiveSession {
  /// The steps kept, as a recording of format 2: a header, then a line per step.
  ///
  /// The first line holds the state after its step whole, and `initial`, the state before it,
  /// unless it is the app's `StatecraftInit`; each later line what changed, `stateOmitted` for a
  /// state the app did not send during a burst, `stateDropped` for one not known otherwise. A gap
  /// is a gap line. The actions the app skips are left out, as the states after them are. `nil`
  /// when no app has sent anything yet.
  ///
  /// - Complexity: O(*n*) for the *n* bytes of the steps kept, at most `limits.bytes` and the
  ///   states at the checkpoints.
  package func recording() -> String? {
    let model = model.withLock { $0 }
    guard model.header != nil || !model.actions.isEmpty else { return nil }
    var header =
      model.header
      ?? RecordingFormat.Header(stateType: nil, startedAt: nil, snapshotInterval: nil)
    header.actionTypes = []  // a recording names no types to dispatch
    header.snapshotInterval = nil  // one snapshot, on the first line
    var text = header.json.jsonText() + "\n"
    var state = model.initial
    let initTypeName = String(reflecting: StatecraftInit.self)
    var skipped: Set<Int> = []
    if case .array(let indices)? = model.status["skipped"] {
      skipped = Set(indices.compactMap(\.integerValue))
    }
    for (position, action) in model.actions.enumerated() {
      guard case .array(let parts) = action, parts.count == 6,
        let typeIndex = parts[2].integerValue, model.typeNames.indices.contains(typeIndex)
      else { continue }
      // A skipped action changed nothing: the states after it were computed without it.
      if let index = parts[4].integerValue, skipped.contains(index), position > 0 { continue }
      let typeName = model.typeNames[typeIndex]
      var line: [String: JSONValue] = [:]
      if typeName == SessionReport.gapTypeName {
        line["gap"] = parts[5]
      } else {
        line["index"] = parts[4]
        line["time"] = parts[1]
        line["type"] = .string(typeName)
        line["payload"] = parts[5]
        if position == 0, model.firstStep > 0 || typeName != initTypeName {
          line["initial"] = model.initial
        }
      }
      switch model.patches[position] {
      case .array(let patches):
        let changes = patches.compactMap(JSONChange.init(patch:))
        for change in changes { state.apply(change) }
        if position == 0 {
          line["state"] = state
        } else {
          line["changes"] = .array(changes.map(\.patch))
        }
      case .string("omitted"):
        line["stateOmitted"] = .bool(true)
      default:
        if model.header?.stateType != nil { line["stateDropped"] = .bool(true) }
      }
      text += JSONValue.object(line).jsonText() + "\n"
    }
    return text
  }
}
