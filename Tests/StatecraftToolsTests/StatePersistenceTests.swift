import Foundation
import Statecraft
import StatecraftPrimitives
import StatecraftTestSupport
import StatecraftTesting
import Testing

@testable import StatecraftTools

@Suite(.catchesHangs) struct StatePersistenceTests {
  @Test func savesAndRestores() throws {
    let folder = try TemporaryFolder()
    let persistence = makePersistence(folder.url.appendingPathComponent("settings.json"))
    #expect(try persistence.restore().get() == nil)  // first launch
    try persistence.save(Settings(theme: "dark", fontSize: 16))
    #expect(try persistence.restore().get() == Settings(theme: "dark", fontSize: 16))
  }

  @Test func newFilesAreReadableByTheUserOnly() throws {
    let folder = try TemporaryFolder()
    let file = folder.url.appendingPathComponent("settings.json")
    try makePersistence(file).save(Settings())
    let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
  }

  @Test func migratesAnOlderVersion() throws {
    let folder = try TemporaryFolder()
    let persistence = makePersistence(try folder.fixture("version-1.json"))
    #expect(try persistence.restore().get() == Settings(theme: "light", fontSize: 12))
  }

  @Test(arguments: [
    ("truncated.json", "corrupt"),
    ("corrupt.json", "corrupt"),
    ("newer-version.json", "newerVersion"),
    ("wrong-type.json", "wrongType"),
    ("nested.json", "tooDeeplyNested"),
  ])
  func aBadFileIsReportedAndKeptAside(fixture: String, expected: String) throws {
    let folder = try TemporaryFolder()
    let file = try folder.fixture(fixture)
    let original = try Data(contentsOf: file)
    let result = makePersistence(file).restore()
    guard case .failure(let error) = result else {
      Issue.record("\(fixture) restored: \(result)")
      return
    }
    #expect(String(describing: error.reason).hasPrefix(expected), "\(error)")
    #expect(error.description.contains("settings.json"))
    let kept = try #require(error.movedAsideTo)
    #expect(try Data(contentsOf: kept) == original)  // kept, byte for byte
    #expect(!FileManager.default.fileExists(atPath: file.path))  // the app starts fresh
  }

  @Test func aMissingMigrationIsReported() throws {
    let folder = try TemporaryFolder()
    let file = try folder.fixture("version-1.json")
    let persistence = StatePersistence<AppState, Settings>(
      file: file, schemaVersion: 2, select: { $0.settings })
    guard case .failure(let error) = persistence.restore() else {
      Issue.record("restored without a migration")
      return
    }
    #expect(error.reason == .missingMigration(from: 1))
  }

  @Test func aHugeFileIsNotRead() throws {
    let folder = try TemporaryFolder()
    let file = folder.url.appendingPathComponent("settings.json")
    try Data(repeating: UInt8(ascii: " "), count: 4_096).write(to: file)
    guard case .failure(let error) = makePersistence(file, maximumFileSize: 1_024).restore() else {
      Issue.record("a huge file was read")
      return
    }
    #expect(error.reason == .tooLarge(bytes: 4_096, limit: 1_024))
  }

  @Test func aBadFileIsNeverOverwritten() throws {
    let folder = try TemporaryFolder()
    let first = try folder.fixture("corrupt.json")
    let persistence = makePersistence(first)
    guard case .failure(let error1) = persistence.restore() else { return }
    _ = try folder.fixture("truncated.json")  // the same name, broken again
    guard case .failure(let error2) = persistence.restore() else { return }
    let kept = try [#require(error1.movedAsideTo), #require(error2.movedAsideTo)]
    #expect(kept[0] != kept[1])
    #expect(kept.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
  }

  @Test(arguments: [AtomicWriteStep.wroteTemporaryFile, .flushedTemporaryFile])
  func aCrashMidSaveLeavesThePreviousFileWhole(step: AtomicWriteStep) throws {
    let folder = try TemporaryFolder()
    let persistence = makePersistence(folder.url.appendingPathComponent("settings.json"))
    try persistence.save(Settings(theme: "dark", fontSize: 14))
    struct Crash: Error {}
    persistence.writer.faultInjection.withLock { inject in
      inject = { current in if current == step { throw Crash() } }
    }
    #expect(throws: PersistenceError.self) {
      try persistence.save(Settings(theme: "half-written", fontSize: 99))
    }
    #expect(try persistence.restore().get() == Settings(theme: "dark", fontSize: 14))
    #expect(folder.contents == ["settings.json"])  // no temporary file left behind
  }

  @MainActor
  @Test func theMiddlewareSavesABurstOfChangesOnceAfterAQuietPeriod() async throws {
    let (folder, clock, persistence, writes, store) = try debouncedStore()
    defer { withExtendedLifetime(folder) {} }  // the folder goes when the test ends
    for size in 13...22 { store.dispatch(SettingsAction.setFontSize(size)) }
    // One debounce for the whole burst, however many changes.
    #expect(await sleepers(of: clock, become: 1))
    await clock.advance(by: .milliseconds(299))
    #expect(writes.value == 0)
    // The debounce may have begun before the last change of the burst, and then waits once
    // more: one or two intervals after the last change, never less than one.
    for _ in 0..<2 where writes.value == 0 {
      await clock.advance(by: .milliseconds(301))
      _ = await eventually { writes.value > 0 || clock.sleeperCount > 0 }
    }
    #expect(writes.value == 1)
    #expect(try persistence.restore().get() == Settings(theme: "light", fontSize: 22))
  }

  @MainActor
  @Test func aChangeDuringTheDebouncePostponesTheSave() async throws {
    let (folder, clock, persistence, writes, store) = try debouncedStore()
    defer { withExtendedLifetime(folder) {} }  // the folder goes when the test ends
    store.dispatch(SettingsAction.setTheme("first"))
    #expect(await sleepers(of: clock, become: 1))
    await clock.advance(by: .milliseconds(200))
    store.dispatch(SettingsAction.setTheme("second"))  // during the wait
    await clock.advance(by: .milliseconds(100))
    #expect(await sleepers(of: clock, become: 1), "waits again: the state changed meanwhile")
    #expect(writes.value == 0)
    await clock.advance(by: .milliseconds(300))
    #expect(await eventually { writes.value > 0 })
    #expect(writes.value == 1)
    #expect(try persistence.restore().get()?.theme == "second")
  }

  @MainActor
  @Test func theDispatchPathNeitherSelectsNorEncodes() async throws {
    let folder = try TemporaryFolder()
    let clock = TestClock()
    let selections = Counter()
    let persistence = StatePersistence<AppState, Settings>(
      file: folder.url.appendingPathComponent("settings.json"), debounce: .milliseconds(300),
      clock: clock
    ) { state in
      selections.increment()
      return state.settings
    }
    let writes = countWrites(of: persistence)
    let store = Store(
      reducer: appReducer, state: AppState(), middleware: [persistence.middleware()])
    for size in 0..<1_000 { store.dispatch(SettingsAction.setFontSize(size)) }
    #expect(selections.value == 0, "selection happens at save time only")
    #expect(await sleepers(of: clock, become: 1))
    await clock.advance(by: .milliseconds(300))
    await persistence.flush()
    #expect(await eventually { writes.value > 0 })
    #expect(selections.value == 1, "once, on the newest state")
    #expect(try persistence.restore().get()?.fontSize == 999)
  }

  @MainActor
  @Test func anUnchangedSelectionIsNotWrittenAgain() async throws {
    let folder = try TemporaryFolder()
    let persistence = makePersistence(
      folder.url.appendingPathComponent("settings.json"), debounce: .seconds(60))
    let writes = countWrites(of: persistence)
    let store = Store(
      reducer: appReducer, state: AppState(), middleware: [persistence.middleware()])
    store.dispatch(SettingsAction.setTheme("dark"))
    await persistence.flush()
    #expect(writes.value == 1)
    store.dispatch(SettingsAction.touchUnsaved)  // not part of the saved slice
    await persistence.flush()
    #expect(writes.value == 1)
  }

  @Test func flushWritesThePendingSaveNow() async throws {
    let folder = try TemporaryFolder()
    let persistence = makePersistence(
      folder.url.appendingPathComponent("settings.json"), debounce: .seconds(60))
    let store = Store(
      reducer: appReducer, state: AppState(), middleware: [persistence.middleware()])
    store.dispatch(SettingsAction.setTheme("dark"))
    await persistence.flush()
    #expect(try persistence.restore().get()?.theme == "dark")
  }

  @Test func theLastChangeIsWrittenWhenTheProcessExitsBeforeTheDebounce() async throws {
    let folder = try TemporaryFolder()
    let path = folder.url.appendingPathComponent("settings.json").path
    await #expect(processExitsWith: .success) { [path = path as String] in
      limitThisChildProcess()
      let persistence = makePersistence(URL(fileURLWithPath: path), debounce: .seconds(60))
      let store = Store(
        reducer: appReducer, state: AppState(), middleware: [persistence.middleware()])
      store.dispatch(SettingsAction.setTheme("saved at exit"))
      exit(0)  // a normal exit, 60 s before the debounce would have written
    }
    let persistence = makePersistence(URL(fileURLWithPath: path))
    #expect(try persistence.restore().get()?.theme == "saved at exit")
  }
}

final class Counter: Sendable {
  private let count = Locked(0)
  func increment() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}

/// A store whose persistence debounces 300 ms on a `TestClock`, with its writes counted.
@MainActor
func debouncedStore() throws -> (
  TemporaryFolder, TestClock, StatePersistence<AppState, Settings>, Counter, Store<AppState>
) {
  let folder = try TemporaryFolder()
  let clock = TestClock()
  let persistence = makePersistence(
    folder.url.appendingPathComponent("settings.json"), debounce: .milliseconds(300),
    clock: clock)
  let store = Store(
    reducer: appReducer, state: AppState(), middleware: [persistence.middleware()])
  return (folder, clock, persistence, countWrites(of: persistence), store)
}

/// Counts the files `persistence` writes.
func countWrites(of persistence: StatePersistence<AppState, Settings>) -> Counter {
  let writes = Counter()
  persistence.writer.faultInjection.withLock { inject in
    inject = { step in if step == .renamed { writes.increment() } }
  }
  return writes
}

/// Whether `clock` gets `count` sleeping tasks within ``Interval/patience``.
func sleepers(of clock: TestClock, become count: Int) async -> Bool {
  await eventually { clock.sleeperCount == count }
}
