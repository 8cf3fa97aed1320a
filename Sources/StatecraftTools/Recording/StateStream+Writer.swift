import Foundation
import Statecraft
import StatecraftPrimitives

// A `StateStream`'s writer thread: it takes what the dispatching threads handed over, reads the
// store's state when the stream is quiet, encodes the lines and passes them to the sink.

extension StateStream {
  /// The writer's loop.
  ///
  /// With a poll interval, a writer that found work checks the buffer again
  /// every interval without being woken, so that a dispatch pays no system call to wake it; after
  /// a quarter of a second without work it sleeps until the next dispatch wakes it.
  func run(_ encoder: inout LineEncoder) {
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
      let (gap, waiters, isClosed, isFlushing, sequence, startsOver) = buffer.withLock {
        buffer -> (StreamGap?, [DispatchSemaphore], Bool, Bool, UInt64, Bool) in
        swap(&buffer.items, &writer.items)
        let startsOver = buffer.startsOver
        buffer.startsOver = false
        let gap = buffer.gap
        buffer.gap = nil
        buffer.actionCount = 0
        buffer.stateCount = 0
        buffer.replyCount = 0
        buffer.stateReplyCount = 0
        buffer.newestState = nil
        var waiters: [DispatchSemaphore] = []
        if writer.items.isEmpty, gap == nil, !isHolding {
          buffer.isWriterIdle = !stayAwake
          waiters = buffer.flushWaiters
          buffer.flushWaiters = []
        }
        return (
          gap, waiters, buffer.isClosed, !buffer.flushWaiters.isEmpty, buffer.sequence, startsOver
        )
      }
      // A dropped reply would have started the encoder over (its state changed the store's).
      if startsOver { encoder.startOver() }
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
        let time = Double(entry.time - start) / 1e9
        observer?(
          .action(
            index: entry.index, action: entry.action, time: time, state: entry.state as? State,
            before: entry.before as? State))
        written += 1
        // Nobody to read it: a restart makes the next state written whole.
        guard isReceiving else { continue }
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
