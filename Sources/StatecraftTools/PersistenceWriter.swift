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

  /// The clock the debounce waits on.
  let clock: any ThunkClock

  init(file: URL, clock: any ThunkClock) {
    self.file = file
    self.clock = clock
    PendingSaves.register(self)
  }

  /// Writes the pending save, if any, now, on the calling thread.
  func writePendingNow() {
    writePending(ifStill: nil)
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
      try? await clock.sleep(for: delay)
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

/// Writes every persistence's pending save when the process ends normally, or when an app goes
/// to the background or terminates: the debounce never loses the last change on a normal exit.
///
/// A crash or a kill still loses what was pending (at most one debounce interval of changes);
/// the file on disk is then the previous whole save.
enum PendingSaves {
  private final class Entry: Sendable {
    weak let writer: PersistenceWriter?
    init(_ writer: PersistenceWriter) { self.writer = writer }
  }

  private static let entries = LockedBox<[Entry]>([])
  private static let installed = LockedBox(false)

  static func register(_ writer: PersistenceWriter) {
    entries.withLock { entries in
      entries.removeAll { $0.writer == nil }
      entries.append(Entry(writer))
    }
    let install = installed.withLock { installed in
      defer { installed = true }
      return !installed
    }
    guard install else { return }
    atexit { PendingSaves.writeAll() }
    #if canImport(Darwin)
      // The app lifecycle points, by their stable names, so that this target needs neither
      // UIKit nor AppKit.
      for name in [
        "UIApplicationDidEnterBackgroundNotification", "UIApplicationWillTerminateNotification",
        "NSApplicationWillTerminateNotification",
      ] {
        _ = NotificationCenter.default.addObserver(
          forName: Notification.Name(name), object: nil, queue: nil
        ) { _ in PendingSaves.writeAll() }
      }
    #endif
  }

  /// Writes what every live persistence has pending, now.
  static func writeAll() {
    for writer in entries.withLock({ $0.compactMap(\.writer) }) {
      writer.writePendingNow()
    }
  }
}
