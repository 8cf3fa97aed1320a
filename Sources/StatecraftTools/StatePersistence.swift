import Foundation
import Statecraft
import StatecraftPrimitives

/// A migration of persisted JSON from one schema version to the next.
public typealias PersistenceMigration = @Sendable (JSONValue) throws -> JSONValue

/// Saves a part of the state to a file and restores it at launch, without ever losing data.
///
/// ```swift
/// let persistence = StatePersistence<AppState, Settings>(
///   file: applicationSupport.appendingPathComponent("settings.json"),
///   schemaVersion: 2,
///   migrations: [1: migrateSettingsV1],
///   select: \.settings
/// )
///
/// var initial = AppState()
/// switch persistence.restore() {
/// case .success(let settings?): initial.settings = settings
/// case .success(nil): break                       // first launch
/// case .failure(let error): report(error)          // the bad file was kept aside
/// }
/// let mainStore = Store(reducer: appReducer, state: initial,
///                       middleware: [persistence.middleware()])
/// ```
///
/// - The dispatch path only notes that a change happened. Selecting the part, encoding it and
///   comparing it with the last save happen at save time, on the newest state, off the
///   dispatching thread and outside the store's locks; an unchanged part is not written again.
/// - Saves are debounced: a burst of changes is written once, after a quiet period. The pending
///   save is written on a normal exit (`exit`, the end of `main`) and when an app goes to the
///   background or terminates; ``flush()`` writes it at once. A crash or a kill loses at most the
///   changes of the last debounce interval.
/// - Each save is atomic: the data goes to a temporary file in the same folder, is flushed to
///   disk, and replaces the file with one rename; a crash mid-save leaves the previous file
///   whole. Files are created readable by the user only, with that mode from the start, and a
///   symbolic link at the file's path is neither written through nor read (see the threat model
///   in `Docs/ThreatModel.md`).
/// - A file that cannot be restored (truncated, corrupt, from a newer version, of the wrong
///   type, too deeply nested, too large, a link or not a regular file) gives a
///   ``PersistenceError`` that says why; the file is renamed aside and kept, never
///   overwritten, and the app starts from its initial state.
///
/// In a target with default main-actor isolation, the saved type's `Codable` conformance is
/// main-actor isolated; the initializers that take such a type are main-actor isolated too, and
/// the persistence then selects, encodes and decodes on the main actor.
public final class StatePersistence<State: Sendable, Saved>: Sendable {
  /// The file the state is saved to.
  /// - Complexity: O(1).
  public let file: URL
  /// The version of the format `Saved` is written in.
  /// - Complexity: O(1).
  public let schemaVersion: Int
  private let migrations: [Int: PersistenceMigration]
  private let coding: PersistenceCoding<State, Saved>
  private let debounce: Interval
  private let maximumFileSize: Int
  private let maximumNestingDepth: Int
  let writer: PersistenceWriter

  /// Creates a persistence for the part of the state that `select` returns.
  ///
  /// - Parameters:
  ///   - file: Where to save.
  ///   - schemaVersion: The version of the format `Saved` has now; raise it when `Saved`
  ///     changes in a way old files cannot be decoded, and add a migration.
  ///   - migrations: For each older version *n*, the change from *n* to *n* + 1.
  ///   - debounce: How long the state must stay unchanged before it is written: a save happens
  ///     between one and two such intervals after the last change.
  ///   - clock: The clock the debounce waits on; tests pass a `TestClock` to control it.
  ///   - maximumFileSize: Files larger than this are not read.
  ///   - maximumNestingDepth: JSON nested deeper than this is not read.
  ///   - select: The part of the state to save; called at save time, not on each dispatch.
  /// - Complexity: O(1).
  public convenience init(
    file: URL,
    schemaVersion: Int = 1,
    migrations: [Int: PersistenceMigration] = [:],
    debounce: Interval = .milliseconds(500),
    clock: any ThunkClock = ThunkClockKey.defaultValue,
    maximumFileSize: Int = 10 * 1_024 * 1_024,
    maximumNestingDepth: Int = 64,
    select: @escaping @Sendable (State) -> Saved
  ) where Saved: Codable & Sendable {
    self.init(
      file: file, schemaVersion: schemaVersion, migrations: migrations, debounce: debounce,
      clock: clock, maximumFileSize: maximumFileSize, maximumNestingDepth: maximumNestingDepth,
      coding: PersistenceCoding(schemaVersion: schemaVersion, select: select))
  }

  /// Creates a persistence for a part of the state whose `Codable` conformance is main-actor
  /// isolated, what it is in a target with default main-actor isolation.
  ///
  /// The persistence selects, encodes and decodes on the main actor: ``restore()`` and
  /// ``save(_:)`` must be called there, and a debounced save hops to the main queue to encode,
  /// then writes on another thread.
  ///
  /// - Parameters: As for the nonisolated initializer.
  /// - Complexity: O(1).
  @MainActor @_disfavoredOverload
  public convenience init(
    file: URL,
    schemaVersion: Int = 1,
    migrations: [Int: PersistenceMigration] = [:],
    debounce: Interval = .milliseconds(500),
    clock: any ThunkClock = ThunkClockKey.defaultValue,
    maximumFileSize: Int = 10 * 1_024 * 1_024,
    maximumNestingDepth: Int = 64,
    select: @escaping @MainActor (State) -> Saved
  ) where Saved: Codable {
    self.init(
      file: file, schemaVersion: schemaVersion, migrations: migrations, debounce: debounce,
      clock: clock, maximumFileSize: maximumFileSize, maximumNestingDepth: maximumNestingDepth,
      coding: PersistenceCoding(mainActorSchemaVersion: schemaVersion, select: select))
  }

  /// Creates a persistence for the part of the state at `select`, whose `Codable` conformance
  /// is main-actor isolated: the form `select: \.settings` takes in a target with default
  /// main-actor isolation, where such a key path is not `Sendable`.
  ///
  /// - Parameters: As for the nonisolated initializer.
  /// - Complexity: O(1).
  @MainActor @_disfavoredOverload
  public convenience init(
    file: URL,
    schemaVersion: Int = 1,
    migrations: [Int: PersistenceMigration] = [:],
    debounce: Interval = .milliseconds(500),
    clock: any ThunkClock = ThunkClockKey.defaultValue,
    maximumFileSize: Int = 10 * 1_024 * 1_024,
    maximumNestingDepth: Int = 64,
    select: KeyPath<State, Saved>
  ) where Saved: Codable {
    self.init(
      file: file, schemaVersion: schemaVersion, migrations: migrations, debounce: debounce,
      clock: clock, maximumFileSize: maximumFileSize, maximumNestingDepth: maximumNestingDepth,
      coding: PersistenceCoding(mainActorSchemaVersion: schemaVersion) { state in
        state[keyPath: select]
      })
  }

  private init(
    file: URL, schemaVersion: Int, migrations: [Int: PersistenceMigration], debounce: Interval,
    clock: any ThunkClock, maximumFileSize: Int, maximumNestingDepth: Int,
    coding: PersistenceCoding<State, Saved>
  ) {
    self.file = file
    self.schemaVersion = schemaVersion
    self.migrations = migrations
    self.debounce = debounce
    self.maximumFileSize = maximumFileSize
    self.maximumNestingDepth = maximumNestingDepth
    self.coding = coding
    writer = PersistenceWriter(file: file, clock: clock, onMainActor: coding.onMainActor)
  }

  // MARK: Restoring

  /// Reads the saved state, and removes the temporary files that saves killed mid-write left.
  ///
  /// The file is opened once and read through that descriptor, at most `maximumFileSize` + 1
  /// bytes, and parsed once when it has the current schema version.
  ///
  /// - Returns: The saved value, `nil` if nothing was saved yet, or the error that says why
  ///   the file could not be used; that file has then been moved aside.
  /// - Complexity: O(*n*) for a file of *n* bytes.
  public func restore() -> Result<Saved?, PersistenceError> {
    coding.checkIsolation("restore()")
    writer.removeLeftovers()
    do {
      guard let data = try read() else { return .success(nil) }
      return .success(try decode(data))
    } catch {
      // A file that could not be read at all (permissions, I/O) stays where it is.
      let movedAside = if case .fileSystem = error { nil as URL? } else { moveAside() }
      return .failure(PersistenceError(reason: error, file: file, movedAsideTo: movedAside))
    }
  }

  private func read() throws(PersistenceError.Reason) -> Data? {
    do {
      return try AtomicFile.read(file, limit: maximumFileSize)
    } catch {
      switch error {
      case .notARegularFile(let why): throw .notARegularFile(why)
      case .tooLarge(let bytes): throw .tooLarge(bytes: bytes, limit: maximumFileSize)
      case .system(let why): throw .fileSystem(why)
      }
    }
  }

  private func decode(_ data: Data) throws(PersistenceError.Reason) -> Saved {
    guard nestingDepth(of: data, exceeds: maximumNestingDepth) == false else {
      throw .tooDeeplyNested(limit: maximumNestingDepth)
    }
    let stored: StoredPayload<Saved>
    let storedVersion: Int
    do {
      (storedVersion, stored) = try coding.decode(data)
    } catch let mismatch as PayloadMismatch {
      throw .wrongType(Self.explain(mismatch.underlying))
    } catch {
      throw .corrupt(Self.explain(error))
    }
    switch stored {
    case .current(let saved):
      return saved
    case .older(var payload):
      guard storedVersion <= schemaVersion else {
        throw .newerVersion(found: storedVersion, supported: schemaVersion)
      }
      for version in storedVersion..<schemaVersion {
        guard let migrate = migrations[version] else { throw .missingMigration(from: version) }
        do {
          payload = try migrate(payload)
        } catch {
          throw .migrationFailed(from: version, message: String(describing: error))
        }
      }
      do {
        return try coding.decodePayload(JSONEncoder().encode(payload))
      } catch {
        throw .wrongType(Self.explain(error))
      }
    }
  }

  /// Renames the unreadable file to `<name>.unreadable-<date>[-n]` beside it, never over an
  /// existing file.
  ///
  /// Returns the new location, or `nil` if it could not be moved.
  private func moveAside() -> URL? {
    let stamp = ISO8601DateFormatter().string(from: Date())
      .replacingOccurrences(of: ":", with: "-")
    let folder = file.deletingLastPathComponent()
    for attempt in 0..<1_000 {
      let suffix = attempt == 0 ? "" : "-\(attempt)"
      let target = folder.appendingPathComponent(
        "\(file.lastPathComponent).unreadable-\(stamp)\(suffix)")
      guard !FileManager.default.fileExists(atPath: target.path) else { continue }
      do {
        try FileManager.default.moveItem(at: file, to: target)
        return target
      } catch {
        return nil
      }
    }
    return nil
  }

  private static func explain(_ error: any Error) -> String {
    switch error {
    case DecodingError.dataCorrupted(let context):
      return describe(context)
    case DecodingError.keyNotFound(let key, let context):
      return "missing \(key.stringValue) at \(path(context))"
    case DecodingError.typeMismatch(let type, let context):
      return "expected \(type) at \(path(context)): \(context.debugDescription)"
    case DecodingError.valueNotFound(let type, let context):
      return "no \(type) at \(path(context))"
    default:
      return String(describing: error)
    }
  }

  private static func describe(_ context: DecodingError.Context) -> String {
    let underlying = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
    return context.debugDescription + underlying
  }

  private static func path(_ context: DecodingError.Context) -> String {
    let path = context.codingPath.map(\.stringValue).joined(separator: ".")
    return path.isEmpty ? "the top level" : path
  }

  // MARK: Saving

  /// Writes `value` now, atomically.
  ///
  /// - Parameter value: The value to save.
  /// - Throws: ``PersistenceError`` if the file could not be written; the previous file is then
  ///   unchanged.
  /// - Complexity: O(*n*) for *n* bytes of JSON.
  public func save(_ value: Saved) throws {
    coding.checkIsolation("save(_:)")
    let data: Data
    do {
      data = try coding.encode(value)
    } catch {
      throw PersistenceError(
        reason: .wrongType("cannot encode: \(error)"), file: file, movedAsideTo: nil)
    }
    try writer.write(data)
  }

  /// Writes the pending debounced save, if any, now, and returns once it is written.
  ///
  /// The pending save is also written on a normal exit and at the app lifecycle points; call
  /// this for a point of your own, such as the end of a test.
  /// - Complexity: One selection, encoding and file write when a change is pending.
  public func flush() async {
    await writer.flush()
  }

  /// A middleware that saves the selected part after changes, debounced.
  ///
  /// On each dispatch it only notes that a change happened: O(1), no selection, no encoding, no
  /// allocation. After the debounce, the save selects the part from the newest state, encodes it,
  /// and writes it if it differs from the last save. Errors while saving go to `onError`; the
  /// previous file stays in place. A persistence saves one store: give each store its own.
  ///
  /// - Parameter onError: Receives save errors.
  /// - Returns: The middleware.
  /// - Complexity: O(1) per dispatch.
  public func middleware(
    onError: @escaping @Sendable (PersistenceError) -> Void = { print($0) }
  ) -> Middleware<State> {
    { [writer, coding, file, debounce] _, getState in
      writer.attach(
        produce: { () throws(PersistenceError) -> Data? in
          guard let state = getState() else { return nil }
          do {
            return try coding.encodeSelection(state)
          } catch {
            throw PersistenceError(
              reason: .wrongType("cannot encode: \(error)"), file: file, movedAsideTo: nil)
          }
        },
        debounce: debounce, onError: onError)
      return { next in
        { action in
          // A tool's action (the live page's jump) may replace the state with a past one: what
          // is pending of the present is written first.
          if action is any ToolAction { writer.writePendingNow() }
          NotPresentMark.clear()
          next(action)
          // Held, or the store shows a past state: the present did not change.
          guard !NotPresentMark.isSet else { return }
          writer.noteChange()
        }
      }
    }
  }
}
