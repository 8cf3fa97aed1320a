import Foundation
import Statecraft

// The page's commands to a `LiveInspection`: read from the inspector's connection, carried out
// in the store's turn (jump, resume, skip) or on the sending thread (a state computed again), and
// the lines that answer them.

extension LiveInspection {
  /// A command line from the page: jump, resume, skip, dispatch.
  func receive(_ line: ArraySlice<UInt8>) {
    guard case .object(let object)? = try? JSONValue.parse(line),
      case .string(let name)? = object["command"]
    else { return sendError("the inspector sent a line that is not a command") }
    let index = object["index"]?.integerValue
    let dispatch = core.withLock { $0.dispatch }
    switch (name, index) {
    case ("jump", let index?): send(.jump(index), to: dispatch)
    case ("resume", _): send(.resume, to: dispatch)
    case ("skip", let index?): send(.skip(index), to: dispatch)
    case ("state", let index?): sendState(after: index)
    case ("lock", _): lock(object["locked"] == .bool(true))
    case ("commit", _): send(.commit, to: dispatch)
    case ("revert", _): send(.revert, to: dispatch)
    case ("dispatch", _):
      guard case .string(let shown)? = object["type"] else {
        return sendError("dispatch needs the action's type")
      }
      // The page shows types without their module: either name is taken.
      let type: String
      do throws(ActionNameError) {
        type = try registry.resolve(typeName: shown)
      } catch {
        return sendError(error.description)
      }
      guard let decode = registry.decoder(for: type) else {
        return sendError("\(type) is not in the app's ActionRegistry")
      }
      do {
        let payload = object["payload"] ?? .object([:])
        let action = try decode(Data(payload.jsonText().utf8))
        // While locked, the middleware lets this one through.
        core.withLock { core in
          if core.isLocked {
            core.fromInspector[String(reflecting: Swift.type(of: action)), default: 0] += 1
          }
        }
        dispatch?(action)
      } catch {
        sendError(
          "\(type) cannot be decoded from \(object["payload"]?.jsonText() ?? "null"): \(error)")
      }
    default:
      sendError("unknown command \(name)")
    }
  }

  /// Dispatches `command`, for the middleware to carry out in the store's order; it looks for
  /// commands only while some are pending.
  private func send(_ command: LiveCommand, to dispatch: DispatchFunction?) {
    guard let dispatch else { return }
    commandsPending.add(1, ordering: .relaxed)
    dispatch(command)
  }

  /// Carries out a command inside the store's turn, so that it is ordered with the app's actions.
  func perform(
    _ command: LiveCommand, next: DispatchFunction, dispatch: DispatchFunction,
    getState: GetState<State>
  ) {
    guard let reducer = reducerBox.withLock({ $0 }) else {
      return sendError("the store's reducer is not wrapped with LiveInspection.reducer(_:)")
    }
    var replacement: State?
    var waiting: [any Action] = []
    var error: String?
    var rewrite: (from: Int, base: State?, entries: [LiveHistory<State>.Entry])?
    var committed: State?
    core.withLock { core in
      if core.history.isBroken, command != .resume {
        error = "the app's sender fell behind and dropped actions, so it cannot go back before them"
        return
      }
      switch command {
      case .jump(let index):
        guard let position = core.history.position(of: index) else {
          error =
            "the app no longer holds action \(index) (it keeps the last \(core.history.limit))"
          return
        }
        replacement = core.history.state(afterPosition: position, reducer: reducer)
        // The store's state is the present until the page moves it: keep it to resume to.
        if core.pausedAt == nil { core.history.present = getState() }
        core.pausedAt = index
        isPausedFlag.store(true, ordering: .releasing)
      case .resume:
        guard core.pausedAt != nil else { return }
        replacement = core.history.present
        core.history.present = nil
        core.pausedAt = nil
        isPausedFlag.store(false, ordering: .releasing)
        waiting = core.waiting
        core.waiting = []
        core.droppedWhilePaused = 0
      case .skip(let index):
        guard let position = core.history.position(of: index) else {
          error =
            "the app no longer holds action \(index) (it keeps the last \(core.history.limit))"
          return
        }
        guard position > 0 || core.history.base != nil else {
          error = "the store's initial action cannot be skipped"
          return
        }
        let present = core.history.toggleSkip(atPosition: position, reducer: reducer)
        if let paused = core.pausedAt, let shown = core.history.position(of: paused) {
          core.history.present = present
          replacement = core.history.state(afterPosition: shown, reducer: reducer)
        } else {
          replacement = present
        }
        let base =
          position == 0
          ? core.history.base : core.history.state(afterPosition: position - 1, reducer: reducer)
        rewrite = (index, base, Array(core.history.entries[position...]))
      case .commit, .revert:
        guard core.pausedAt == nil else {
          error = "resume the app first: commit and revert act on its present state"
          return
        }
        let base = command == .commit ? getState() : core.history.revertTarget(reducer: reducer)
        guard let base else {
          error = "the app holds no state to revert to: commit first"
          return
        }
        if command == .revert { replacement = base }
        core.history.restart(from: base)
        committed = base
      }
    }
    if let error { return sendError(error) }
    if let replacement {
      words[Self.isReplacing].store(true, ordering: .relaxed)
      next(LiveStateReplacement(state: replacement))
      words[Self.isReplacing].store(false, ordering: .relaxed)
    }
    if let rewrite {
      sendRewrite(rewrite.from, base: rewrite.base, entries: rewrite.entries, reducer)
    }
    if let committed { sendCommit(committed, stateChanged: command == .revert) }
    sendStatus()
    // Queued after this command, in the order they arrived.
    for action in waiting { dispatch(action) }
  }

  /// Sends the states after a skip: the state before the first changed action, whole, then
  /// each held action's changes, computed on the sending thread.
  private func sendRewrite(
    _ from: Int, base: State?, entries: [LiveHistory<State>.Entry],
    _ reducer: @escaping Reducer<State>
  ) {
    stream.enqueue(
      reply: .job { encoder in
        guard var tracker = encoder.freshTracker(), let base else { return [] }
        var state = base
        var object: [String: JSONValue] = ["from": .integer(Int64(from))]
        tracker.track(base).write(into: &object)
        var steps: [JSONValue] = []
        for entry in entries {
          if !entry.isSkipped { state = reducer(entry.action, state) }
          var step: [String: JSONValue] = ["index": .integer(Int64(entry.index))]
          tracker.track(state).write(into: &step)
          steps.append(.object(step))
        }
        object["steps"] = .array(steps)
        // The recording's own tracker no longer knows the store's state: the next one is whole.
        encoder.startOver()
        return [.object(["rewrite": .object(object)])]
      }, holdsState: true, startsOver: true)
  }

  /// The lines of the actions the app holds, with the states after them computed again, for an
  /// inspector that connects: what it missed, within the app's `historyLimit`.
  ///
  /// Run on the writer's thread right after the header, with the encoder started over: the
  /// first line holds its state whole (and the state before it, when the history does not start
  /// at the store's start), and the store's next action is relative to the last of them.
  ///
  /// - Complexity: O(*n*) reductions and encodings for the *n* actions held.
  func historyLines(_ encoder: inout LineEncoder) -> [JSONValue] {
    guard let reducer = reducerBox.withLock({ $0 }) else { return [] }
    let (base, entries, isBroken) = core.withLock {
      ($0.history.base, $0.history.entries, $0.history.isBroken)
    }
    guard !isBroken else { return [] }
    var state = base
    var lines: [JSONValue] = []
    lines.reserveCapacity(entries.count)
    for (position, entry) in entries.enumerated() {
      if !entry.isSkipped { state = reducer(entry.action, state) }
      lines.append(
        encoder.encode(
          index: entry.index, time: entry.time, action: entry.action, state: state,
          before: position == 0 ? base : nil, missingState: nil))
    }
    return lines
  }

  /// Sends the state the page's steps start from after a commit or a revert.
  ///
  /// The page forgets its steps. After a revert the store's state changed without an action, so
  /// the next state the app sends is whole.
  private func sendCommit(_ state: State, stateChanged: Bool) {
    stream.enqueue(
      reply: .job { encoder in
        guard var tracker = encoder.freshTracker() else { return [] }
        var object: [String: JSONValue] = [:]
        tracker.track(state).write(into: &object)
        if stateChanged { encoder.startOver() }
        return [.object(["commit": .object(object)])]
      }, holdsState: true, startsOver: stateChanged)
  }

  /// Sends the state after the action with `index`, computed again from the held actions, for a
  /// step whose state was not sent; the store is not involved.
  private func sendState(after index: Int) {
    guard let reducer = reducerBox.withLock({ $0 }) else {
      return sendError("the store's reducer is not wrapped with LiveInspection.reducer(_:)")
    }
    let (state, limit) = core.withLock { core -> (State??, Int) in
      guard !core.history.isBroken, let position = core.history.position(of: index) else {
        return (nil, core.history.limit)
      }
      return (.some(core.history.state(afterPosition: position, reducer: reducer)), 0)
    }
    guard let state else {
      return sendError(
        "the app no longer holds action \(index) (it keeps the last \(limit)), so it cannot "
          + "compute the state after it")
    }
    stream.enqueue(
      reply: .job { encoder in
        guard var tracker = encoder.freshTracker(), let state else { return [] }
        var object: [String: JSONValue] = ["index": .integer(Int64(index))]
        tracker.track(state).write(into: &object)
        return [.object(["stateAfter": .object(object)])]
      }, holdsState: true)
  }

  /// Locks or unlocks the app: while locked, the middleware drops the app's own actions.
  private func lock(_ locked: Bool) {
    let dropped = core.withLock { core -> Int in
      defer {
        core.isLocked = locked
        core.droppedWhileLocked = 0
        core.fromInspector = [:]
      }
      return core.isLocked && !locked ? core.droppedWhileLocked : 0
    }
    isLockedFlag.store(locked, ordering: .releasing)
    if dropped > 0 {
      Self.warn(
        "LiveInspection: unlocked; \(dropped) of the app's actions were dropped while locked")
    }
    sendStatus()
  }

  /// A warning for the app's developer, on standard error: debug builds only inspect.
  static func warn(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }

  func sendStatus() {
    let (paused, waiting, dropped, skipped, first, last, locked, ignored) = core.withLock {
      (
        $0.pausedAt, $0.waiting.count, $0.droppedWhilePaused, $0.history.skipped,
        $0.history.firstIndex, $0.history.lastIndex, $0.isLocked, $0.droppedWhileLocked
      )
    }
    stream.enqueue(
      reply: .line(
        .object([
          "status": .object([
            "pausedAt": paused.map { .integer(Int64($0)) } ?? .null,
            "waiting": .integer(Int64(waiting)),
            "droppedWhilePaused": .integer(Int64(dropped)),
            "skipped": .array(skipped.map { .integer(Int64($0)) }),
            "heldFrom": first.map { .integer(Int64($0)) } ?? .null,
            "heldTo": last.map { .integer(Int64($0)) } ?? .null,
            "locked": .bool(locked),
            "droppedWhileLocked": .integer(Int64(ignored)),
          ])
        ])))
  }

  private func sendError(_ message: String) {
    stream.enqueue(reply: .line(.object(["error": .string(message)])))
  }
}

/// A command from the page, dispatched into the store so that the middleware carries it out in
/// the store's order.
///
/// Its indices are the recording's (from 0); the page numbers steps from 1, so `jump(5)` is the
/// page's #6, as ``toolDescription`` says it.
enum LiveCommand: ToolAction, Equatable {
  case jump(Int)
  case resume
  case skip(Int)
  /// Makes the present state the base: the history forgets the actions before it.
  case commit
  /// Returns the store to the base, and forgets the actions after it.
  case revert

  var toolDescription: String {
    switch self {
    case .jump(let index): "live page: jump to #\(index + 1)"
    case .resume: "live page: resume"
    case .skip(let index): "live page: skip #\(index + 1)"
    case .commit: "live page: commit"
    case .revert: "live page: revert"
    }
  }
}

/// Sets the store's state: what the reducer wrapper returns instead of reducing.
struct LiveStateReplacement<State: Sendable>: ToolAction {
  let state: State

  var toolDescription: String { "live page: the state shown" }
}
