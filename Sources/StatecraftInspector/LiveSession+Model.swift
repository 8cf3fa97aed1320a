import Statecraft
import StatecraftTools

// The session as the page reads it, and how the app's lines change it: steps added, old steps
// forgotten at a checkpoint, and the states rewritten after a skip.

extension LiveSession {
  struct Model {
    let limits: Limits
    var header: RecordingFormat.Header?
    var types: [String] = []
    /// What the page shows of each of `types`.
    var titles: [String] = []
    /// The qualified type name of each of `types`, for a recording of the session.
    var typeNames: [String] = []
    var typeIndex: [String: Int] = [:]
    var actions: [JSONValue] = []
    var patches: [JSONValue] = []
    var stepOfIndex: [Int: Int] = [:]
    /// The bytes of the app's line for each step kept, and their sum.
    var stepBytes: [Int] = []
    var bytes = 0
    /// The steps of the session no longer kept: `actions[k]` is the page's step
    /// `firstStep + k + 1`, and `initial` the state after step `firstStep`.
    var firstStep = 0
    var initial: JSONValue = .null
    var current: JSONValue = .null
    /// `[step, state]`, the step numbered in the whole session.
    var checkpoints: [JSONValue] = []
    var sinceCheckpoint = 0
    var bytesSinceCheckpoint = 0
    var status: [String: JSONValue] = ["connected": .bool(false), "pausedAt": .null]
    // What the next "steps" event carries.
    var newTypes = 0
    var newActions = 0
    var newCheckpoints = 0
  }

  /// A checkpoint every 1,000 steps, so that a page shows any step quickly.
  private static let checkpointInterval = 1_000

  static func stepsEvent(_ model: inout Model) -> String {
    let first = model.actions.count - model.newActions
    return event(
      "steps",
      .object([
        "types": .array(model.types[model.newTypes...].map(JSONValue.string)),
        "titles": .array(model.titles[model.newTypes...].map(JSONValue.string)),
        "actions": .array(Array(model.actions[first...])),
        "patches": .array(Array(model.patches[first...])),
        "checkpoints": .array(Array(model.checkpoints[model.newCheckpoints...])),
        "startedAt": model.header?.startedAt.map(JSONValue.number) ?? .null,
        // The state before the session's first step, with the first steps.
        "initial": first == 0 && model.firstStep == 0 ? model.initial : .null,
        "hasInitial": .bool(first == 0 && model.firstStep == 0),
      ]))
  }

  /// An action line or a gap line, as a step of the page.
  static func add(
    line object: [String: JSONValue], bytes: Int, to model: inout Model
  ) throws(RecordingLineError) {
    let recorded = try RecordedState(line: object)
    let typeName: String
    let shown: ActionNames.Shown
    var index: JSONValue = .null
    var time = model.actions.last.flatMap { action -> Double? in
      guard case .array(let parts) = action, parts.count > 1 else { return nil }
      return parts[1].doubleValue
    }
    if object["gap"] != nil {
      let gap = try RecordedGap(line: object)
      typeName = SessionReport.gapTypeName
      shown = ActionNames.Shown(
        key: typeName, title: typeName,
        label: RecordedGap.describe(from: gap.from, count: gap.count)
          + " were not sent: the app's sender fell behind")
    } else {
      guard case .string(let type)? = object["type"],
        let recordedIndex = object["index"]?.integerValue
      else { return }  // a kind of line this inspector does not know
      typeName = type
      index = .integer(Int64(recordedIndex))
      time = object["time"]?.doubleValue ?? time
      shown = ActionNames.shown(
        typeName: type, payload: object["payload"].flatMap { $0 == .null ? nil : $0 })
      model.stepOfIndex[recordedIndex] = model.actions.count
      if model.actions.isEmpty, model.firstStep == 0, let initial = object["initial"] {
        model.initial = initial
        model.current = initial
      }
    }
    if model.actions.isEmpty, model.firstStep == 0, model.initial == .null,
      case .snapshot(let state) = recorded,
      typeName == String(reflecting: StatecraftInit.self)
    {
      model.initial = state
      model.current = state
    }
    let typeIndex =
      model.typeIndex[shown.key]
      ?? {
        model.types.append(shown.key)
        model.titles.append(shown.title)
        model.typeNames.append(typeName)
        model.typeIndex[shown.key] = model.types.count - 1
        return model.types.count - 1
      }()
    let patch = patch(for: recorded, current: &model.current)
    model.actions.append(
      .array([
        // A live step has no line in a file.
        .null, .number(time ?? 0), .integer(Int64(typeIndex)),
        shown.label.map(JSONValue.string) ?? .null,
        index,
        // The action as JSON, for the page's tree and raw view, or a gap's `{from, count}`;
        // its bytes count in `bytes`.
        object["payload"] ?? object["gap"] ?? .null,
      ]))
    model.patches.append(patch)
    model.stepBytes.append(bytes)
    model.bytes += bytes
    model.newActions += 1
    model.sinceCheckpoint += 1
    model.bytesSinceCheckpoint += bytes
    // Also after an eighth of the bytes kept, so that large steps are forgotten in small parts.
    // Only where the state is known: after a step whose state the app did not send, `current`
    // is the last state sent, not the state after that step.
    if model.sinceCheckpoint >= checkpointInterval
      || model.bytesSinceCheckpoint >= model.limits.bytes / 8,
      case .array = patch
    {
      model.checkpoints.append(
        .array([.integer(Int64(model.firstStep + model.actions.count)), model.current]))
      model.sinceCheckpoint = 0
      model.bytesSinceCheckpoint = 0
    }
  }

  /// Forgets the oldest steps once more than the limits are kept, down to about three quarters
  /// of them, at a checkpoint: its state is the state before the first step kept.
  ///
  /// - Complexity: O(*n*) for the *n* steps kept, about once every quarter of the limits.
  static func forgetOldSteps(_ model: inout Model) {
    let limits = model.limits
    guard model.actions.count > limits.steps || model.bytes > limits.bytes else { return }
    var cut: (step: Int, state: JSONValue, checkpoints: Int, bytes: Int)?
    var droppedBytes = 0
    var counted = 0
    for (offset, checkpoint) in model.checkpoints.enumerated() {
      guard case .array(let parts) = checkpoint, parts.count == 2,
        let step = parts[0].integerValue, step > model.firstStep
      else { continue }
      let dropped = min(step - model.firstStep, model.actions.count)
      droppedBytes += model.stepBytes[counted..<dropped].reduce(0, +)
      counted = dropped
      cut = (step, parts[1], offset + 1, droppedBytes)
      if model.actions.count - dropped <= limits.steps / 4 * 3,
        model.bytes - droppedBytes <= limits.bytes / 4 * 3
      {
        break
      }
    }
    guard let cut else { return }
    let dropped = cut.step - model.firstStep
    model.actions.removeFirst(dropped)
    model.patches.removeFirst(dropped)
    model.stepBytes.removeFirst(dropped)
    model.bytes -= cut.bytes
    model.checkpoints.removeFirst(cut.checkpoints)
    model.initial = cut.state
    model.firstStep = cut.step
    model.stepOfIndex = model.stepOfIndex.compactMapValues { $0 >= dropped ? $0 - dropped : nil }
  }

  /// The app's action types as the page offers them to dispatch, `[shown, whole]`: by the name
  /// the list shows, or the whole name where two types share that name.
  static func offered(_ names: [String]) -> JSONValue {
    .array(ActionNames.offered(names).map { .array([.string($0.shown), .string($0.whole)]) })
  }

  /// The page's patch for a line's state, applied to `current`: `"omitted"` when the app did
  /// not send it, `null` when it is not known for another reason.
  private static func patch(for recorded: RecordedState, current: inout JSONValue) -> JSONValue {
    switch recorded {
    case .changes(let changes):
      for change in changes { current.apply(change) }
      return .array(changes.map(\.patch))
    case .snapshot(let state):
      let changes = JSONChange.between(current, state)
      current = state
      return .array(changes.map(\.patch))
    case .omitted:
      return .string("omitted")
    case .none, .dropped, .failed:
      return .null
    }
  }

  /// The states after a skip: the state before the first changed action, then each later
  /// action's changes, replacing what the page held from that action on.
  static func apply(rewrite: [String: JSONValue], to model: inout Model) {
    guard let from = rewrite["from"]?.integerValue, let start = model.stepOfIndex[from],
      case .snapshot(var current)? = try? RecordedState(line: rewrite),
      case .array(let steps)? = rewrite["steps"]
    else { return }
    knowStateBefore(position: start, current, in: &model)
    for step in steps {
      guard case .object(let object) = step, let index = object["index"]?.integerValue,
        let position = model.stepOfIndex[index], let recorded = try? RecordedState(line: object)
      else { continue }
      model.patches[position] = patch(for: recorded, current: &current)
    }
    model.current = current
    // Checkpoints after the change are computed again, at the same steps, from the one before
    // it. Their steps are numbered in the whole session; positions in what is kept.
    let firstStep = model.firstStep
    var again: Set<Int> = []
    model.checkpoints.removeAll { checkpoint in
      guard case .array(let parts) = checkpoint, let step = parts.first?.integerValue else {
        return true
      }
      // From the state after the step before `start`, which `knowStateBefore` may have set.
      guard step - firstStep >= start else { return false }
      again.insert(step)
      return true
    }
    var state = model.initial
    var base = 0
    if case .array(let parts)? = model.checkpoints.last, let step = parts.first?.integerValue {
      state = parts[1]
      base = step - firstStep
    }
    for position in base..<model.patches.count {
      if case .array(let patches) = model.patches[position] {
        for patch in patches { if let change = JSONChange(patch: patch) { state.apply(change) } }
      }
      if again.contains(firstStep + position + 1) {
        model.checkpoints.append(.array([.integer(Int64(firstStep + position + 1)), state]))
      }
    }
  }

  /// Takes `state`, the state before the step at `position`, as the state after the step before
  /// it when that step's state was not sent: the changes after it are relative to `state`.
  ///
  /// - Complexity: O(*c*) for the *c* changes of the steps before `position`.
  private static func knowStateBefore(position: Int, _ state: JSONValue, in model: inout Model) {
    guard position > 0 else { return }
    if case .array = model.patches[position - 1] { return }
    var before = model.initial
    for patch in model.patches[..<(position - 1)] {
      guard case .array(let changes) = patch else { continue }
      for change in changes { if let change = JSONChange(patch: change) { before.apply(change) } }
    }
    model.patches[position - 1] = .array(JSONChange.between(before, state).map(\.patch))
  }

  /// Forgets the steps kept: the session goes on from `state`, as after a commit or a revert.
  ///
  /// The steps are numbered on from the last one.
  static func start(from state: JSONValue, in model: inout Model) {
    model.firstStep += model.actions.count
    model.actions = []
    model.patches = []
    model.stepBytes = []
    model.bytes = 0
    model.checkpoints = []
    model.sinceCheckpoint = 0
    model.bytesSinceCheckpoint = 0
    model.stepOfIndex = [:]
    model.initial = state
    model.current = state
  }
}
