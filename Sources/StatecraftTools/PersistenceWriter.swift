import Foundation
import Statecraft
import StatecraftPrimitives

/// Saves one file.
///
/// Notes changes, waits for a quiet period, then produces the data from the newest state and
/// writes it if it differs from the last write. A write never runs at the same time as another.
final class PersistenceWriter: Sendable {
  private struct Schedule {
    /// The `generation` the last save took.
    var savedGeneration: UInt64 = 0
    var produce: (@Sendable () throws(PersistenceError) -> Data?)?
    var debounce = Interval.zero
    var onError: (@Sendable (PersistenceError) -> Void)?
  }

  let file: URL
  /// Counts the changes noted; a save is due while it differs from the saved generation.
  private let generation = AtomicCell<UInt64>(0)
  private let isDebouncing = AtomicCell<Bool>(false)
  private let schedule = Locked(Schedule())
  /// Held while writing; holds the bytes of the last write, to skip an identical one.
  private let writing = Locked<Data?>(nil)
  /// Called between the steps of each write; tests make it throw to simulate a crash.
  let faultInjection = Locked<(@Sendable (AtomicWriteStep) throws -> Void)?>(nil)

  /// The clock the debounce waits on.
  let clock: any ThunkClock
  /// Whether the data must be produced on the main actor.
  let onMainActor: Bool

  init(file: URL, clock: any ThunkClock, onMainActor: Bool) {
    self.file = file
    self.clock = clock
    self.onMainActor = onMainActor
    PendingSaves.register(self)
  }

  /// Sets how the debounced saves get their data: `produce` reads the newest state.
  func attach(
    produce: @escaping @Sendable () throws(PersistenceError) -> Data?, debounce: Interval,
    onError: @escaping @Sendable (PersistenceError) -> Void
  ) {
    schedule.withLock { schedule in
      schedule.produce = produce
      schedule.debounce = debounce
      schedule.onError = onError
    }
  }

  /// Notes that the state may have changed, and starts the debounce unless it runs.
  ///
  /// Two atomic operations, no lock; allocates only when it starts the debounce. A change
  /// noted while a finishing debounce clears its flag is in the state that save reads, since
  /// the action was reduced before the note.
  func noteChange() {
    generation.add(1, ordering: .sequentiallyConsistent)
    guard !isDebouncing.load(ordering: .sequentiallyConsistent),
      !isDebouncing.exchange(true, ordering: .sequentiallyConsistent)
    else { return }
    Task.detached { [self] in await debounceThenSave() }
  }

  /// Waits until no change was noted for a whole debounce interval, then saves.
  private func debounceThenSave() async {
    let debounce = schedule.withLock { $0.debounce }
    while true {
      let seen = generation.load(ordering: .sequentiallyConsistent)
      try? await clock.sleep(for: debounce)
      if generation.load(ordering: .sequentiallyConsistent) == seen { break }
    }
    isDebouncing.store(false, ordering: .sequentiallyConsistent)
    await saveIfDue()
  }

  /// Writes the pending save, if any, now.
  func flush() async {
    await saveIfDue()
  }

  /// Writes the pending save, if any, now, on the calling thread.
  ///
  /// Used at exit and at the app lifecycle points. A main-actor persistence can only produce
  /// its data on the main queue; called elsewhere, it leaves the save to its debounce.
  func writePendingNow() {
    guard !onMainActor || MainQueue.isCurrent else { return }
    guard let (produce, onError) = takeDue() else { return }
    produceAndWrite(produce, onError)
  }

  private func saveIfDue() async {
    guard let (produce, onError) = takeDue() else { return }
    if onMainActor {
      await MainActor.run { produceAndWrite(produce, onError) }
    } else {
      produceAndWrite(produce, onError)
    }
  }

  private typealias Due = (
    @Sendable () throws(PersistenceError) -> Data?, (@Sendable (PersistenceError) -> Void)?
  )

  private func takeDue() -> Due? {
    schedule.withLock { schedule in
      let current = generation.load(ordering: .sequentiallyConsistent)
      guard let produce = schedule.produce, current != schedule.savedGeneration else { return nil }
      schedule.savedGeneration = current
      return (produce, schedule.onError)
    }
  }

  private func produceAndWrite(
    _ produce: @Sendable () throws(PersistenceError) -> Data?,
    _ onError: (@Sendable (PersistenceError) -> Void)?
  ) {
    do {
      guard let data = try produce() else { return }
      try write(data, skippingIfUnchanged: true)
    } catch {
      onError?(error)
    }
  }

  /// Writes `data` now.
  func write(_ data: Data) throws(PersistenceError) {
    try write(data, skippingIfUnchanged: false)
  }

  private func write(_ data: Data, skippingIfUnchanged: Bool) throws(PersistenceError) {
    do {
      try writing.withLock { last in
        if skippingIfUnchanged, last == data { return }
        let inject = faultInjection.withLock { $0 }
        try AtomicFile.write(data, to: file) { step in try inject?(step) }
        last = data
      }
    } catch {
      throw PersistenceError(
        reason: .fileSystem(String(describing: error)), file: file, movedAsideTo: nil)
    }
  }

  /// Removes what killed saves left, while no save of this process runs.
  func removeLeftovers() {
    writing.withLock { _ in AtomicFile.removeLeftovers(of: file) }
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

  private static let entries = Locked<[Entry]>([])
  private static let installed = Locked(false)

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
