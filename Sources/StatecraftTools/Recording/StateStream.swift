import Foundation
import Statecraft
import StatecraftPrimitives

// What the dispatching thread calls: a `StateStream`'s hand-over to its writer, and its start
// and end. The writer's side is in StateStream+Writer.swift.

/// Hands a store's actions and states to a background writer that encodes them as the lines of a
/// recording (``RecordingFormat``) and passes them to a sink: a file, or a live inspector's
/// connection.
///
/// The dispatching thread only appends to a bounded buffer under a lock (``enqueue(_:state:)``);
/// encoding, diffing, redaction and writing happen on the writer's thread. What happens when the
/// writer falls behind is ``RecordingLimits``'s to say.
///
/// A stream created with a state interval (a live inspector's) takes a state at most once an
/// interval: holding a state until the writer has encoded it makes the store's next in-place
/// change copy what it changes. The actions between are written with `stateOmitted`, and the
/// state after the last action of a burst is read from the store once it is quiet (see
/// ``beginDispatch()``).
package final class StateStream<State: Sendable>: Sendable {
  /// Receives the encoded lines, each ending in a newline, a batch at a time.
  ///
  /// Called on the writer's thread. It may block: the buffer fills meanwhile, within its limits.
  package typealias Sink = @Sendable (_ bytes: [UInt8]) throws -> Void

  /// What the writer hands an observer, in order, before writing it.
  package enum Event {
    /// An action, its index, and the states after and (for a store's first action) before it,
    /// if the buffer kept them.
    case action(index: Int, action: any Action, time: Double, state: State?, before: State?)
    /// Actions the buffer dropped, and the state after the last of them.
    case gap(from: Int, count: Int, state: State?)
  }

  /// Sees each action and gap on the writer's thread.
  package typealias Observer = @Sendable (Event) -> Void

  let buffer = Locked(StreamBuffer())
  let wake = DispatchSemaphore(value: 0)
  let finished = DispatchSemaphore(value: 0)
  private let limits: RecordingLimits
  let tracksStates: Bool
  let start = MonotonicClock.now
  let pollNanoseconds: Int
  let observer: Observer?
  let sink: Sink
  /// Whether the sink takes lines now; while it does not, the writer encodes nothing.
  let isSinkReceiving: @Sendable () -> Bool
  let onError: @Sendable (any Error) -> Void
  private let header: RecordingFormat.Header
  /// The shortest time between two states taken, in nanoseconds; 0 to take every state.
  let stateInterval: UInt64
  /// What every dispatch of a stream with a state interval reads, in one allocation: the
  /// dispatches between ``beginDispatch()`` and ``endDispatch()``, and when the next state is due.
  private let words = AtomicWords(count: 2)
  var inFlight: AtomicWord<Int> { words[0] }
  var nextStateTime: AtomicWord<UInt64> { words[1] }
  /// Reads the store's state, or returns `nil` when it is not the present one (a live store
  /// moved back in time).
  let quietState = Locked<(@Sendable () -> (any Sendable)?)?>(nil)

  /// Starts a stream and its writer thread, and writes the header first.
  ///
  /// - Parameters:
  ///   - header: The header line, written at once on the calling thread.
  ///   - registry: Encodes the actions' payloads.
  ///   - encoder: Turns states into JSON; `nil` when the state is not `Encodable`.
  ///   - limits: What may wait for the writer, and how often a state is written whole.
  ///   - redacting: The paths whose values are written as `"<redacted>"`.
  ///   - pollInterval: How often, in seconds, a busy writer looks for work without being woken;
  ///     0 to be woken by every enqueue that finds it idle.
  ///   - stateInterval: The shortest time between two states taken (``takesState(at:)``);
  ///     `.zero` for every state.
  ///   - observer: Sees each action and gap on the writer's thread, before it is written.
  ///   - sink: Receives the lines.
  ///   - isSinkReceiving: Whether the sink takes lines now (a live inspector is connected):
  ///     while it does not, the observer still sees each action, and nothing is encoded. Asked
  ///     before each batch and after each job.
  ///   - onError: Receives the sink's errors.
  init(
    header: RecordingFormat.Header, registry: ActionRegistry, encoder: StateEncoderFactory?,
    limits: RecordingLimits, redacting: (@Sendable (String) -> Bool)?, pollInterval: Double,
    stateInterval: Interval = .zero, observer: Observer? = nil,
    sink: @escaping Sink, isSinkReceiving: @escaping @Sendable () -> Bool = { true },
    onError: @escaping @Sendable (any Error) -> Void
  ) {
    self.limits = limits
    tracksStates = encoder != nil
    pollNanoseconds = Int(pollInterval * 1e9)
    self.stateInterval = encoder == nil ? 0 : stateInterval.nanoseconds
    self.observer = observer
    self.sink = sink
    self.isSinkReceiving = isSinkReceiving
    self.onError = onError
    self.header = header
    do {
      try sink(Array((header.json.jsonText() + "\n").utf8))
    } catch {
      onError(error)
    }
    let snapshotInterval = limits.snapshotInterval
    let thread = Thread { [self] in
      // The encoder lives on this thread only.
      var lineEncoder = LineEncoder(
        registry: registry, stateEncoder: encoder, redacting: redacting,
        snapshotInterval: snapshotInterval)
      run(&lineEncoder)
    }
    thread.name = "Statecraft recording writer"
    thread.start()
  }

  /// What was written and dropped so far.
  var statistics: RecordingStatistics {
    buffer.withLock { $0.statistics }
  }

  /// Whether to take the state after an action dispatched at `time`: always, unless the stream
  /// has a state interval and took one less than an interval ago.
  ///
  /// - Complexity: O(1): an atomic load, and a store when it answers `true`.
  func takesState(at time: UInt64) -> Bool {
    guard stateInterval > 0 else { return tracksStates }
    guard time >= nextStateTime.load(ordering: .relaxed) else { return false }
    nextStateTime.store(time + stateInterval, ordering: .relaxed)
    return true
  }

  /// Says that a dispatch is under way, until ``endDispatch()``.
  ///
  /// For a stream with a state interval: the writer does not read the store's state meanwhile,
  /// which may be newer than the last action handed over. Call ``endDispatch()`` after the
  /// dispatch's ``enqueue(_:state:before:at:)``.
  ///
  /// - Complexity: O(1): an atomic addition.
  func beginDispatch() {
    inFlight.add(1, ordering: .acquiringAndReleasing)
  }

  /// Ends what ``beginDispatch()`` began.
  ///
  /// - Complexity: O(1): an atomic subtraction.
  func endDispatch() {
    inFlight.add(-1, ordering: .acquiringAndReleasing)
  }

  /// Lets the writer read the store's state, for the newest action when nothing was taken after
  /// it and no dispatch is under way.
  ///
  /// - Parameter read: The store's state, or `nil` when it is not the state after the last
  ///   action handed over (a store moved back in time).
  func readStateWhenQuiet(_ read: @escaping @Sendable () -> State?) {
    quietState.withLock { $0 = { read().map { $0 } } }
  }

  /// Hands over an action and the state after it, and never blocks on the writer.
  ///
  /// For the first action of a store created with a state, `before` is the state before it.
  /// In a stream with a state interval, a `nil` state is one not taken (``takesState(at:)``).
  /// Returns the index the action has in the recording.
  ///
  /// - Complexity: O(1) amortized: a lock and an append.
  ///
  /// The states are boxed by the caller (``boxedState(_:)``), so that this function holds no
  /// `State?`: in code not specialized for the app's state, each costs a metadata lookup.
  @discardableResult
  func enqueue(
    _ action: any Action, state: (any Sendable)?, before: (any Sendable)? = nil,
    at time: UInt64 = MonotonicClock.now
  ) -> Int {
    // Tested once: copying an empty existential is not free.
    let keepsState = tracksStates && state != nil
    let hasBefore = before != nil
    let (index, shouldWake) = buffer.withLock { buffer -> (Int, Bool) in
      let index = buffer.nextIndex
      guard !buffer.isClosed else { return (index, false) }
      buffer.nextIndex += 1
      buffer.sequence &+= 1
      buffer.statistics.actions += 1
      if buffer.actionCount >= limits.maximumPendingActions {
        // Full: the action goes into the gap; the gap keeps only the newest state.
        if buffer.gap == nil { buffer.gap = StreamGap(from: index, count: 0, state: nil) }
        buffer.gap?.count += 1
        if keepsState { buffer.gap?.state = state }
        buffer.statistics.droppedActions += 1
        return (index, false)
      }
      var entry = StreamEntry(
        index: index, time: time, action: action, state: keepsState ? state : nil,
        before: hasBefore ? before : nil, isStateOmitted: !keepsState && stateInterval > 0)
      if keepsState {
        if buffer.stateCount >= limits.maximumPendingStates, let newest = buffer.newestState,
          case .action(var older) = buffer.items[newest]
        {
          // Coalescing: the newest state wins; the one before it is dropped.
          older.state = nil
          buffer.items[newest] = .action(older)
          buffer.statistics.droppedStates += 1
        } else if buffer.stateCount >= limits.maximumPendingStates {
          entry.state = nil
          buffer.statistics.droppedStates += 1
        } else {
          buffer.stateCount += 1
        }
        if entry.state != nil { buffer.newestState = buffer.items.count }
      }
      buffer.items.append(.action(entry))
      buffer.actionCount += 1
      buffer.statistics.mostPendingActions = max(
        buffer.statistics.mostPendingActions, buffer.actionCount)
      buffer.statistics.mostPendingStates = max(
        buffer.statistics.mostPendingStates, buffer.stateCount)
      // A burst wakes a polling writer before the buffer fills.
      if buffer.actionCount == limits.maximumPendingActions / 2 { return (index, true) }
      return (index, takeWriter(&buffer))
    }
    if shouldWake { wake.signal() }
    return index
  }

  /// Writes `line` after the actions handed over before it.
  func enqueue(line: JSONValue) {
    append(.line(line))
  }

  /// Starts the stream over for a new reader, a live inspector that connected again.
  ///
  /// The lines handed over before go to the sink as it is; then `startSending` runs on the
  /// writer's thread, the header is written, and the next state written is whole. The next
  /// dispatch takes its state.
  func restart(
    _ startSending: @escaping @Sendable () -> Void,
    then history: (@Sendable (inout LineEncoder) -> [JSONValue])? = nil
  ) {
    nextStateTime.store(0, ordering: .relaxed)
    enqueue { [header] encoder in
      startSending()
      encoder.startOver()
      // In the same job, so that no action is written between the header and the history.
      return [header.json] + (history?(&encoder) ?? [])
    }
  }

  /// Runs `job` on the writer's thread, after the actions handed over before it, and writes the
  /// lines it returns.
  func enqueue(job: @escaping @Sendable (inout LineEncoder) -> [JSONValue]) {
    append(.job(job))
  }

  /// How many replies to a reader's requests (``enqueue(reply:)``) may wait for the writer.
  static var maximumPendingReplies: Int { 1_024 }

  /// Writes `reply`, an answer to a request of the stream's reader, after what was handed over
  /// before it; dropped when ``maximumPendingReplies`` wait already.
  ///
  /// A reader that sends requests and does not read the stream fills the budget and then loses
  /// replies, never the app's memory. A reply that holds a state (`holdsState`) counts against
  /// ``RecordingLimits/maximumPendingStates`` too, as the states of actions do; one that starts the
  /// encoder over (`startsOver`: it follows a change of the store's state without an action) has
  /// the writer start over if it is dropped. The first reply written after a drop is preceded by
  /// an error line that counts what was dropped.
  func enqueue(reply: StreamItem, holdsState: Bool = false, startsOver: Bool = false) {
    append(reply, isReply: true, holdsState: holdsState, startsOver: startsOver)
  }

  private func append(
    _ item: StreamItem, isReply: Bool = false, holdsState: Bool = false, startsOver: Bool = false
  ) {
    let shouldWake = buffer.withLock { buffer -> Bool in
      guard !buffer.isClosed else { return false }
      if isReply {
        guard buffer.replyCount < Self.maximumPendingReplies - 1,
          !holdsState || buffer.stateReplyCount < limits.maximumPendingStates
        else {
          buffer.droppedReplies += 1
          if startsOver { buffer.startsOver = true }
          return false
        }
        if holdsState { buffer.stateReplyCount += 1 }
        if buffer.droppedReplies > 0 {
          let message =
            "the app dropped \(buffer.droppedReplies) replies: the inspector sent commands "
            + "faster than it read the app's lines"
          buffer.items.append(.line(.object(["error": .string(message)])))
          buffer.replyCount += 1
          buffer.droppedReplies = 0
        }
        buffer.replyCount += 1
      }
      buffer.items.append(item)
      buffer.sequence &+= 1
      return takeWriter(&buffer)
    }
    if shouldWake { wake.signal() }
  }

  /// Marks the writer busy and says whether to wake it: only when it was idle, so that a busy
  /// writer costs a dispatch nothing more.
  private func takeWriter(_ buffer: inout StreamBuffer) -> Bool {
    guard buffer.isWriterIdle else { return false }
    buffer.isWriterIdle = false
    return true
  }

  /// Waits until everything handed over before the call is written.
  ///
  /// - Parameter limit: How long to wait for the writer, which may be blocked in the sink;
  ///   `nil` to wait until it is done.
  /// - Returns: Whether the writer was done within `limit`.
  @discardableResult
  func flush(waitingAtMost limit: Interval? = nil) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let shouldWake = buffer.withLock { buffer -> Bool? in
      guard !buffer.isClosed else { return nil }
      buffer.flushWaiters.append(done)
      return takeWriter(&buffer)
    }
    guard shouldWake != nil else { return true }
    wake.signal()
    guard let limit else {
      done.wait()
      return true
    }
    // A waiter that gave up stays in the list; the writer's later signal finds no one.
    return done.wait(timeout: .now() + .nanoseconds(Int(clamping: limit.nanoseconds))) == .success
  }

  /// Writes what is pending, then stops the writer; later actions are dropped.
  ///
  /// - Parameter limit: How long to wait for the writer, which may be blocked in the sink;
  ///   `nil` to wait until it stops.
  /// - Returns: Whether the writer stopped within `limit`; if not, it stops once the sink
  ///   returns. `true` when the stream was closed before.
  @discardableResult
  func close(waitingAtMost limit: Interval? = nil) -> Bool {
    let shouldWake = buffer.withLock { buffer -> Bool? in
      guard !buffer.isClosed else { return nil }
      buffer.isClosed = true
      return takeWriter(&buffer)
    }
    guard shouldWake != nil else { return true }
    // Woken even when busy or polling: the writer stops once it finds the buffer empty.
    wake.signal()
    guard let limit else {
      finished.wait()
      return true
    }
    return finished.wait(timeout: .now() + .nanoseconds(Int(clamping: limit.nanoseconds)))
      == .success
  }
}

/// The state `getState` returns, boxed for ``StateStream/enqueue(_:state:before:at:)``, in a
/// function of its own: the `State?` it holds costs a metadata lookup in code not specialized for
/// the app's state, paid only when a state is taken.
@inline(never)
func boxedState<State: Sendable>(_ getState: GetState<State>) -> (any Sendable)? {
  guard let state = getState() else { return nil }
  return state
}
