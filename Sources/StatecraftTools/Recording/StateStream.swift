import Foundation
import Statecraft

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
    case action(index: Int, action: any Action, state: State?, before: State?)
    /// Actions the buffer dropped, and the state after the last of them.
    case gap(from: Int, count: Int, state: State?)
  }

  /// Sees each action and gap on the writer's thread.
  package typealias Observer = @Sendable (Event) -> Void

  private let buffer = Locked(StreamBuffer())
  private let wake = DispatchSemaphore(value: 0)
  private let finished = DispatchSemaphore(value: 0)
  private let limits: RecordingLimits
  let tracksStates: Bool
  private let start = MonotonicClock.now
  private let pollNanoseconds: Int
  private let observer: Observer?
  private let sink: Sink
  /// Whether the sink takes lines now; while it does not, the writer encodes nothing.
  private let isSinkReceiving: @Sendable () -> Bool
  private let onError: @Sendable (any Error) -> Void
  private let header: RecordingFormat.Header
  /// The shortest time between two states taken, in nanoseconds; 0 to take every state.
  private let stateInterval: UInt64
  /// What every dispatch of a stream with a state interval reads, in one allocation: the
  /// dispatches between ``beginDispatch()`` and ``endDispatch()``, and when the next state is due.
  private let words = AtomicWords(count: 2)
  private var inFlight: AtomicWord<Int> { words[0] }
  private var nextStateTime: AtomicWord<UInt64> { words[1] }
  /// Reads the store's state, or returns `nil` when it is not the present one (a live store
  /// moved back in time).
  private let quietState = Locked<(@Sendable () -> (any Sendable)?)?>(nil)

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
  func restart(_ startSending: @escaping @Sendable () -> Void) {
    nextStateTime.store(0, ordering: .relaxed)
    enqueue { [header] encoder in
      startSending()
      encoder.startOver()
      return [header.json]
    }
  }

  /// Runs `job` on the writer's thread, after the actions handed over before it, and writes the
  /// lines it returns.
  func enqueue(job: @escaping @Sendable (inout LineEncoder) -> [JSONValue]) {
    append(.job(job))
  }

  private func append(_ item: StreamItem) {
    let shouldWake = buffer.withLock { buffer -> Bool in
      guard !buffer.isClosed else { return false }
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
  func flush() {
    let done = DispatchSemaphore(value: 0)
    let shouldWake = buffer.withLock { buffer -> Bool? in
      guard !buffer.isClosed else { return nil }
      buffer.flushWaiters.append(done)
      return takeWriter(&buffer)
    }
    guard shouldWake != nil else { return }
    wake.signal()
    done.wait()
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

  /// The writer's loop.
  ///
  /// With a poll interval, a writer that found work checks the buffer again
  /// every interval without being woken, so that a dispatch pays no system call to wake it; after
  /// a quarter of a second without work it sleeps until the next dispatch wakes it.
  private func run(_ encoder: inout LineEncoder) {
    var isPolling = false
    var quietPolls = 0
    var writer = Writer()
    while true {
      if isPolling {
        _ = wake.wait(timeout: .now() + .nanoseconds(pollNanoseconds))
      } else {
        wake.wait()
      }
      switch drain(&encoder, &writer, stayAwake: isPolling) {
      case .closed:
        finished.signal()
        return
      case .wrote:
        quietPolls = 0
        isPolling = pollNanoseconds > 0
      case .nothing:
        quietPolls += 1
        if isPolling, quietPolls * pollNanoseconds >= 250_000_000 {
          // Sleep only if nothing came meanwhile: the next dispatch then wakes the writer.
          isPolling = !buffer.withLock { buffer -> Bool in
            guard buffer.items.isEmpty, buffer.gap == nil else { return false }
            buffer.isWriterIdle = true
            return true
          }
        }
      }
    }
  }

  private enum DrainResult { case wrote, nothing, closed }

  /// What the writer keeps between drains.
  private struct Writer {
    /// The buffer's items, swapped with the buffer's empty array: both keep their capacity.
    var items: [StreamItem] = []
    /// The newest action, kept back while its state may still be read (a stream with a state
    /// interval): written with the store's state once quiet, or without one when more came.
    var held: StreamEntry?
  }

  /// Writes batches until the buffer is empty.
  ///
  /// Unless `stayAwake`, the writer is then marked
  /// idle, so that the next enqueue wakes it.
  private func drain(
    _ encoder: inout LineEncoder, _ writer: inout Writer, stayAwake: Bool
  ) -> DrainResult {
    var wrote = false
    while true {
      let isHolding = writer.held != nil
      let (gap, waiters, isClosed, isFlushing, sequence) = buffer.withLock {
        buffer -> (StreamGap?, [DispatchSemaphore], Bool, Bool, UInt64) in
        swap(&buffer.items, &writer.items)
        let gap = buffer.gap
        buffer.gap = nil
        buffer.actionCount = 0
        buffer.stateCount = 0
        buffer.newestState = nil
        var waiters: [DispatchSemaphore] = []
        if writer.items.isEmpty, gap == nil, !isHolding {
          buffer.isWriterIdle = !stayAwake
          waiters = buffer.flushWaiters
          buffer.flushWaiters = []
        }
        return (
          gap, waiters, buffer.isClosed, !buffer.flushWaiters.isEmpty, buffer.sequence
        )
      }
      if writer.items.isEmpty, gap == nil {
        if var entry = writer.held {
          // Nothing came after it: its state, if the store is quiet and the state is due.
          guard
            let state = stateWhenQuiet(
              after: sequence, isDue: isClosed || isFlushing, isClosed: isClosed)
          else {
            return .wrote
          }
          entry.state = state
          writer.held = nil
          write([.action(entry)], nil, &encoder)
          wrote = true
          continue
        }
        for waiter in waiters { waiter.signal() }
        return isClosed ? .closed : wrote ? .wrote : .nothing
      }
      if let held = writer.held {
        writer.items.insert(.action(held), at: 0)
        writer.held = nil
      }
      if stateInterval > 0, pollNanoseconds > 0, gap == nil,
        case .action(let last)? = writer.items.last, last.isStateOmitted
      {
        writer.held = last
        writer.items.removeLast()
      }
      write(writer.items, gap, &encoder)
      // A burst's capacity is not kept.
      writer.items.removeAll(keepingCapacity: writer.items.capacity <= 4_096)
      wrote = true
    }
  }

  /// The store's state for the newest action written, read when nothing was handed over since
  /// `sequence` and no dispatch is under way, before and after the read: a dispatch raises
  /// `inFlight` before it reduces and lowers it after its enqueue.
  ///
  /// Returns `nil` to look again later (a dispatch is under way, or the state is not due yet and
  /// not `isDue`, as when a flush waits), `.some(nil)` when the state is not to be read (the store
  /// is not at the present, or the stream is closing and the store is busy).
  private func stateWhenQuiet(
    after sequence: UInt64, isDue: Bool, isClosed: Bool
  ) -> (any Sendable)?? {
    guard let read = quietState.withLock({ $0 }) else { return .some(nil) }
    let now = MonotonicClock.now
    if !isDue, now < nextStateTime.load(ordering: .relaxed) { return nil }
    guard inFlight.load(ordering: .acquiring) == 0 else { return isClosed ? .some(nil) : nil }
    let state = read()
    guard inFlight.load(ordering: .acquiring) == 0,
      buffer.withLock({ $0.sequence }) == sequence
    else { return isClosed ? .some(nil) : nil }
    if state != nil { nextStateTime.store(now + stateInterval, ordering: .relaxed) }
    return .some(state)
  }

  private func write(_ items: [StreamItem], _ gap: StreamGap?, _ encoder: inout LineEncoder) {
    var bytes: [UInt8] = []
    var written = 0
    var isReceiving = isSinkReceiving()
    for item in items {
      switch item {
      case .action(let entry):
        observer?(
          .action(
            index: entry.index, action: entry.action, state: entry.state as? State,
            before: entry.before as? State))
        written += 1
        // Nobody to read it: a restart makes the next state written whole.
        guard isReceiving else { continue }
        let time = Double(entry.time - start) / 1e9
        encoder.encode(
          index: entry.index, time: time, action: entry.action, state: entry.state,
          before: entry.before,
          missingState: !tracksStates ? nil : entry.isStateOmitted ? .omitted : .dropped
        ).write(to: &bytes, scriptSafe: false)
        bytes.append(UInt8(ascii: "\n"))
      case .line(let line):
        guard isReceiving else { continue }
        line.write(to: &bytes, scriptSafe: false)
        bytes.append(UInt8(ascii: "\n"))
      case .job(let job):
        // What came before goes to the sink as it was before the job, which may change it.
        if !bytes.isEmpty {
          send(bytes)
          bytes = []
        }
        for line in job(&encoder) {
          line.write(to: &bytes, scriptSafe: false)
          bytes.append(UInt8(ascii: "\n"))
        }
        isReceiving = isSinkReceiving()
      }
    }
    if let gap {
      observer?(.gap(from: gap.from, count: gap.count, state: gap.state as? State))
    }
    if let gap, isReceiving {
      encoder.encodeGap(from: gap.from, count: gap.count, state: gap.state)
        .write(to: &bytes, scriptSafe: false)
      bytes.append(UInt8(ascii: "\n"))
    }
    buffer.withLock { $0.statistics.writtenActions += written }
    if !bytes.isEmpty { send(bytes) }
  }

  private func send(_ bytes: [UInt8]) {
    do {
      try sink(bytes)
    } catch {
      onError(error)
    }
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

/// Makes the encoder of a state type that is `Encodable`, found at run time, so that a recorder
/// of any state records the states it can encode.
package struct StateEncoderFactory: Sendable {
  fileprivate let make: @Sendable () -> any StateEncoding

  /// The factory for `type`, or `nil` when it is not `Encodable`.
  package init?(for type: Any.Type) {
    guard let encodable = type as? any (Encodable & Sendable).Type else { return nil }
    make = Self.factory(for: encodable)
  }

  private static func factory<State: Encodable & Sendable>(
    for type: State.Type
  ) -> @Sendable () -> any StateEncoding {
    { TypedStateEncoding<State>() }
  }
}

/// Turns entries into the lines of a recording.
///
/// Payloads go through the registry, states are written as a first snapshot then changes, and
/// redaction applies to both. Lives on the writer's thread.
package struct LineEncoder {
  let registry: ActionRegistry
  private let factory: StateEncoderFactory?
  private let stateEncoder: (any StateEncoding)?
  let redacting: (@Sendable (String) -> Bool)?
  let snapshotInterval: Int
  private var statesSinceSnapshot = 0
  private var needsSnapshot = true

  init(
    registry: ActionRegistry, stateEncoder: StateEncoderFactory?,
    redacting: (@Sendable (String) -> Bool)?, snapshotInterval: Int
  ) {
    self.registry = registry
    factory = stateEncoder
    self.stateEncoder = stateEncoder.map { $0.make() }
    self.redacting = redacting
    self.snapshotInterval = snapshotInterval
  }

  /// The action's JSON, redacted, or `nil` when its type is not registered.
  package func payload(of action: any Action) -> JSONValue? {
    guard let data = registry.encode(action), var json = try? JSONValue.parse(data) else {
      return nil
    }
    if let redacting { json = json.redacted(at: "action", isSensitive: redacting) }
    return json
  }

  /// What a line says of `state`, tracked against the state written before it.
  package mutating func record(_ state: Any) -> RecordedState {
    guard let stateEncoder else { return .none }
    do {
      if needsSnapshot || statesSinceSnapshot >= snapshotInterval {
        _ = try stateEncoder.track(state)
        needsSnapshot = false
        statesSinceSnapshot = 1
        return .snapshot(redact(stateEncoder.json()))
      }
      let changes = try stateEncoder.track(state)
      statesSinceSnapshot += 1
      guard let redacting else { return .changes(changes) }
      return .changes(changes.map { $0.redacted(isSensitive: redacting) })
    } catch {
      // The tracker may hold part of the failed state: the next one is written whole.
      needsSnapshot = true
      return .failed("\(error)")
    }
  }

  /// A tracker of its own, for a sequence of states apart from the recording's: the first state
  /// it is given is written whole, the next ones as changes, redacted as the recording is.
  package func freshTracker() -> FreshTracker? {
    factory.map { FreshTracker(encoding: $0.make(), redacting: redacting) }
  }

  /// The next state is written whole: what a reader needs after the states it has were
  /// rewritten.
  package mutating func startOver() {
    needsSnapshot = true
  }

  private func redact(_ json: JSONValue) -> JSONValue {
    guard let redacting else { return json }
    return json.redacted(at: "", isSensitive: redacting)
  }

  mutating func encode(
    index: Int, time: Double, action: any Action, state: Any?, before: Any?,
    missingState: RecordedState?
  ) -> JSONValue {
    var object: [String: JSONValue] = [
      "index": .integer(Int64(index)), "time": .number(time),
      "type": .string(ActionRegistry.name(of: type(of: action))),
      "payload": payload(of: action) ?? .null,
    ]
    if let before {
      if case .snapshot(let json) = record(before) { object["initial"] = json }
    }
    if let state {
      record(state).write(into: &object)
    } else {
      missingState?.write(into: &object)
    }
    return .object(object)
  }

  mutating func encodeGap(from: Int, count: Int, state: Any?) -> JSONValue {
    var object: [String: JSONValue] = [
      "gap": .object(["from": .integer(Int64(from)), "count": .integer(Int64(count))])
    ]
    if let state { record(state).write(into: &object) }
    return .object(object)
  }
}

/// Tracks a sequence of states apart from a recording's.
package struct FreshTracker {
  fileprivate let encoding: any StateEncoding
  let redacting: (@Sendable (String) -> Bool)?
  private var isFirst = true

  fileprivate init(encoding: any StateEncoding, redacting: (@Sendable (String) -> Bool)?) {
    self.encoding = encoding
    self.redacting = redacting
  }

  /// The state whole the first time, then what changed.
  package mutating func track(_ state: Any) -> RecordedState {
    do {
      let changes = try encoding.track(state)
      if isFirst {
        isFirst = false
        let json = encoding.json()
        return .snapshot(redacting.map { json.redacted(at: "", isSensitive: $0) } ?? json)
      }
      guard let redacting else { return .changes(changes) }
      return .changes(changes.map { $0.redacted(isSensitive: redacting) })
    } catch {
      return .failed("\(error)")
    }
  }
}

private protocol StateEncoding {
  func track(_ state: Any) throws -> [JSONChange]
  func json() -> JSONValue
}

/// The `StateChangeTracker` of one state type, used on the writer's thread only.
private final class TypedStateEncoding<State: Encodable>: StateEncoding {
  private var tracker = StateChangeTracker<State>()

  func track(_ state: Any) throws -> [JSONChange] {
    guard let state = state as? State else { return [] }
    return try tracker.track(state)
  }

  func json() -> JSONValue { tracker.json }
}

// What a `StateStream` keeps for its writer. Not nested in the generic stream, and holding states
// as `any Sendable`: the dispatching thread's appends then run code compiled for these types, where
// generic entries went through the state type's metadata and value witnesses on every append.
private struct StreamEntry {
  var index: Int
  var time: UInt64
  var action: any Action
  var state: (any Sendable)?
  var before: (any Sendable)?
  /// The state was not taken (a stream with a state interval), rather than dropped.
  var isStateOmitted: Bool
}

private struct StreamGap {
  var from: Int
  var count: Int
  var state: (any Sendable)?
}

private enum StreamItem {
  case action(StreamEntry)
  /// A line the owner writes in order with the actions (a live inspector's status).
  case line(JSONValue)
  /// Work on the writer's encoder, in order with the actions (a live inspector's rewrite).
  case job(@Sendable (inout LineEncoder) -> [JSONValue])
}

private struct StreamBuffer {
  var items: [StreamItem] = []
  var actionCount = 0
  var stateCount = 0
  /// The position in `items` of the newest entry holding a state, which gives it up first.
  var newestState: Int?
  var gap: StreamGap?
  var nextIndex = 0
  /// Counts what was handed over: actions, lines and jobs.
  var sequence: UInt64 = 0
  var isWriterIdle = true
  var isClosed = false
  var flushWaiters: [DispatchSemaphore] = []
  var statistics = RecordingStatistics()
}
