import Statecraft
import StatecraftTools

extension SessionReport {
  /// A report of a recording from the states it holds, without the app's code: what
  /// `swift run inspect` shows for any app's recording.
  ///
  /// ```swift
  /// let recording = try Recording(contentsOf: sessionURL)
  /// try SessionReport(recording: recording).writeHTML(title: "Bug 1234", to: pageURL)
  /// ```
  ///
  /// A recording of format 1, or of a state that is not `Encodable`, holds no states: the
  /// report lists its actions and their values only. A step whose state the recorder dropped
  /// (its writer fell behind) shows no change, and the next state it recorded is shown as it
  /// was.
  ///
  /// - Parameter recording: The recording, read with or without a registry.
  /// - Complexity: O(*n*) for *n* changes in the recording, plus a comparison of the whole
  ///   state at each snapshot it holds.
  public init(recording: Recording) {
    let initTypeName = String(reflecting: StatecraftInit.self)
    var initial = recording.initialState ?? .null
    if recording.initialState == nil, let first = recording.entries.first,
      first.typeName == initTypeName, case .snapshot(let state) = first.state
    {
      initial = state  // the initial action's state is the state before the first real one
    }
    var current = initial
    var stateBytes = 0
    var steps: [Step] = []
    steps.reserveCapacity(recording.entries.count)
    var checkpoints: [(step: Int, state: JSONValue)] = []
    var interval = Self.minimumCheckpointInterval
    var sinceCheckpoint = 0
    var gaps = recording.gaps[...]
    func addCheckpointIfDue() {
      sinceCheckpoint += 1
      if sinceCheckpoint >= interval {
        checkpoints.append((steps.count, current))
        sinceCheckpoint = 0
      }
    }
    // A gap is a step of its own: the actions it stands for, and the state after them.
    func addGaps(before offset: Int) {
      while let gap = gaps.first, gap.beforeEntry <= offset {
        gaps = gaps.dropFirst()
        let time = steps.last?.time ?? 0
        let changes = Self.changes(for: gap.state, applyingTo: &current)
        steps.append(
          Step(
            line: gap.line, time: time, typeName: Self.gapTypeName,
            shown: ActionNames.Shown(
              key: Self.gapTypeName, title: Self.gapTypeName,
              label: RecordedGap.describe(from: gap.from, count: gap.count)
                + " were not recorded: the recorder's writer fell behind"),
            changes: gap.state == .none ? nil : changes))
        addCheckpointIfDue()
      }
    }
    for (offset, entry) in recording.entries.enumerated() {
      addGaps(before: offset)
      var changes: [JSONChange]?
      switch entry.state {
      case .changes, .snapshot:
        if case .snapshot(let state) = entry.state, stateBytes == 0 {
          stateBytes = state.jsonText().utf8.count
          interval = Self.checkpointInterval(
            stateBytes: stateBytes, steps: recording.entries.count)
        }
        changes = Self.changes(for: entry.state, applyingTo: &current)
      case .none, .dropped, .omitted, .failed:
        changes = nil
      }
      steps.append(
        Step(
          line: entry.line, time: entry.time, typeName: entry.typeName,
          shown: ActionNames.shown(typeName: entry.typeName, payload: entry.payload),
          changes: changes, index: entry.index, payload: entry.payload))
      addCheckpointIfDue()
    }
    addGaps(before: Int.max)
    self.initial = initial
    self.steps = steps
    self.checkpoints = checkpoints
    checkpointInterval = interval
    lines = recording.lines
    stateTypeName = recording.header?.stateType
    hasStates = recording.hasStates
    startedAt = recording.header?.startedAt
    isIncomplete = !recording.gaps.isEmpty || recording.droppedStates > 0
    problems = recording.problems.filter { $0.reason != .notReplayable(initTypeName) }
  }

  /// The type name of a step that stands for actions the recorder dropped.
  package static let gapTypeName = "(not recorded)"

  /// The changes a line's state makes to `current`, which they are applied to.
  private static func changes(
    for state: RecordedState, applyingTo current: inout JSONValue
  ) -> [JSONChange] {
    switch state {
    case .changes(let changes):
      for change in changes { current.apply(change) }
      return changes
    case .snapshot(let state):
      let changes = JSONChange.between(current, state)
      current = state
      return changes
    case .none, .dropped, .omitted, .failed:
      return []
    }
  }
}

extension SessionReport {
  /// The state after `step` steps (0: the initial state), and the step whose state it is.
  ///
  /// The step is an earlier one when the recording does not hold the state after `step`. `nil`
  /// when the report has no states or `step` is out of range.
  ///
  /// - Complexity: O(*c*) for the *c* changes between the nearest checkpoint and `step`.
  package func state(afterStep step: Int) -> (state: JSONValue, step: Int)? {
    guard hasStates, (0...steps.count).contains(step) else { return nil }
    var base = (step: 0, state: initial)
    if let index = checkpoints.lastIndex(where: { $0.step <= step }) { base = checkpoints[index] }
    var state = base.state
    for index in base.step..<step {
      guard let changes = steps[index].changes else { continue }
      for change in changes { state.apply(change) }
    }
    // The step whose state it is: a checkpoint holds the last state known before it, so the
    // steps without a state are counted back from `step`, not from the checkpoint.
    var known = step
    while known > 0, steps[known - 1].changes == nil { known -= 1 }
    return (state, known)
  }

  /// How many steps the report holds whose state is not known.
  /// - Complexity: O(*n*) for *n* steps.
  package var stepsWithoutState: Int {
    steps.count { $0.changes == nil }
  }
}
