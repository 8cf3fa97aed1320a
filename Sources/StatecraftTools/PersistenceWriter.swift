import Foundation
import Statecraft

/// Writes the saves of one file, in order: a debounced save writes only the latest data, and a
/// write never runs at the same time as another.
final class PersistenceWriter: Sendable {
  private struct Pending {
    var data: Data?
    var generation: UInt64 = 0
    var onError: (@Sendable (PersistenceError) -> Void)?
  }

  let file: URL
  private let pending = LockedBox(Pending())
  private let writing = LockedBox(())
  /// Called between the steps of each write; tests make it throw to simulate a crash.
  let faultInjection = LockedBox<(@Sendable (AtomicWriteStep) throws -> Void)?>(nil)

  init(file: URL) {
    self.file = file
  }

  /// Writes `data` now.
  func write(_ data: Data) throws {
    try writing.withLock { _ in
      let inject = faultInjection.withLock { $0 }
      do {
        try AtomicFile.write(data, to: file) { step in try inject?(step) }
      } catch {
        throw PersistenceError(
          reason: .fileSystem(String(describing: error)), file: file, movedAsideTo: nil)
      }
    }
  }

  /// Writes `data` once `delay` has passed without a newer schedule.
  func schedule(
    _ data: Data, after delay: Interval, onError: @escaping @Sendable (PersistenceError) -> Void
  ) {
    let generation = pending.withLock { pending in
      pending.data = data
      pending.generation &+= 1
      pending.onError = onError
      return pending.generation
    }
    Task.detached { [self] in
      await MonotonicClock.sleep(for: delay)
      writePending(ifStill: generation)
    }
  }

  /// Writes the pending data, if any, now.
  func flush() async {
    writePending(ifStill: nil)
  }

  private func writePending(ifStill generation: UInt64?) {
    let taken = pending.withLock { pending -> (Data, (@Sendable (PersistenceError) -> Void)?)? in
      guard let data = pending.data, generation == nil || generation == pending.generation
      else { return nil }
      pending.data = nil
      return (data, pending.onError)
    }
    guard let (data, onError) = taken else { return }
    do {
      try write(data)
    } catch let error as PersistenceError {
      onError?(error)
    } catch {
      onError?(
        PersistenceError(
          reason: .fileSystem(String(describing: error)), file: file, movedAsideTo: nil))
    }
  }
}
