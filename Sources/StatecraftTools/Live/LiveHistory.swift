import Statecraft

/// The actions a live-inspected store reduced, kept to move it back in time.
///
/// It holds the state before the first one held and the actions, with whether each is skipped. A
/// state is computed when the
/// page asks for it, by reducing the actions again from the nearest checkpoint (the state after
/// every 100th action, kept once computed), so that recording keeps no state of the store's.
struct LiveHistory<State: Sendable>: Sendable {
  struct Entry: Sendable {
    let index: Int
    let action: any Action
    /// When the store reduced it, in seconds since the stream started.
    var time: Double = 0
    var isSkipped = false
  }

  static var checkpointInterval: Int { 100 }

  /// How many actions are held at most; older ones are forgotten 100 at a time.
  let limit: Int
  /// The state before `entries[0]`, or `nil` before a store's initial action.
  private(set) var base: State?
  private(set) var entries: [Entry] = []
  /// The state after `entries[k]` for each `k` whose `k + 1` is a multiple of 100.
  private var checkpoints: [Int: State] = [:]
  /// The state after the last entry with the skipped actions left out, when it is not the
  /// store's: kept only while the store shows another, so that the history holds no reference to
  /// the store's state (which would make its next change in place copy it).
  var present: State?

  init(limit: Int) {
    self.limit = max(Self.checkpointInterval, limit)
  }

  var firstIndex: Int? { entries.first?.index }
  var lastIndex: Int? { entries.last?.index }

  /// Holds `action`, the next one the store reduced; `before` is the state before a store's first
  /// action, if it was created with one.
  mutating func append(index: Int, action: any Action, time: Double = 0, before: State?) {
    if entries.isEmpty, base == nil { base = before }
    entries.append(Entry(index: index, action: action, time: time))
    if entries.count >= limit + Self.checkpointInterval, let reducer = forgetting {
      // Forget the oldest 100: the state after them is the new base.
      base = state(afterPosition: Self.checkpointInterval - 1, reducer: reducer)
      entries.removeFirst(Self.checkpointInterval)
      var moved: [Int: State] = [:]
      for (position, state) in checkpoints where position >= Self.checkpointInterval {
        moved[position - Self.checkpointInterval] = state
      }
      checkpoints = moved
    }
  }

  /// The reducer that computes the new base when the oldest actions are forgotten; until it is
  /// known, nothing is forgotten.
  var forgetting: Reducer<State>?

  /// Starts over after actions were dropped before they reached the history.
  ///
  /// What it held can no longer be reduced again; it starts from the state after them, if known.
  mutating func restart(from state: State?) {
    entries = []
    checkpoints = [:]
    base = state
    isBroken = state == nil
  }

  /// The state a revert returns to: the base (the state committed last, or the oldest the
  /// history still holds), or the state after the store's initial action.
  mutating func revertTarget(reducer: Reducer<State>) -> State? {
    if let base { return base }
    guard entries.first?.action is StatecraftInit else { return nil }
    return state(afterPosition: 0, reducer: reducer)
  }

  /// Whether the history lost actions and knows no state to start from.
  private(set) var isBroken = false

  /// The position of the action with `index`, if it is held.
  func position(of index: Int) -> Int? {
    guard let first = firstIndex, index >= first, index - first < entries.count,
      entries[index - first].index == index
    else { return entries.firstIndex { $0.index == index } }
    return index - first
  }

  /// The state after the action at `position`, with skipped actions left out; computed checkpoints
  /// are kept.
  mutating func state(afterPosition position: Int, reducer: Reducer<State>) -> State? {
    var start = -1
    var state = base
    var checkpoint = (position + 1) / Self.checkpointInterval * Self.checkpointInterval - 1
    while checkpoint >= 0 {
      if let saved = checkpoints[checkpoint] {
        start = checkpoint
        state = saved
        break
      }
      checkpoint -= Self.checkpointInterval
    }
    if start < position {
      for current in (start + 1)...position {
        if !entries[current].isSkipped {
          state = reducer(entries[current].action, consume state)
        }
        if (current + 1) % Self.checkpointInterval == 0 { checkpoints[current] = state }
      }
    }
    return state
  }

  /// Skips the action at `position`, or takes it back, computes the later states again, and
  /// returns the state after the last action.
  mutating func toggleSkip(atPosition position: Int, reducer: Reducer<State>) -> State? {
    entries[position].isSkipped.toggle()
    var state = position == 0 ? base : self.state(afterPosition: position - 1, reducer: reducer)
    for current in position..<entries.count {
      if !entries[current].isSkipped { state = reducer(entries[current].action, consume state) }
      if (current + 1) % Self.checkpointInterval == 0 { checkpoints[current] = state }
    }
    return state
  }

  /// The indices of the skipped actions.
  var skipped: [Int] {
    entries.filter(\.isSkipped).map(\.index)
  }
}
