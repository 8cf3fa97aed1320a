import Foundation
import Statecraft

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
/// - Saves are debounced: a burst of changes is written once, after a quiet period. The pending
///   save is written on a normal exit (`exit`, the end of `main`) and when an app goes to the
///   background or terminates; ``flush()`` writes it at once. A crash or a kill loses at most the
///   changes of the last debounce interval.
/// - Each save is atomic: the data goes to a temporary file in the same folder, is flushed to
///   disk, and replaces the file with one rename; a crash mid-save leaves the previous file
///   whole. Files are created readable by the user only.
/// - A file that cannot be restored (truncated, corrupt, from a newer version, of the wrong
///   type, too deeply nested, too large) gives a ``PersistenceError`` that says why; the file is
///   renamed aside and kept, never overwritten, and the app starts from its initial state.
public final class StatePersistence<State: Sendable, Saved: Codable & Sendable & Equatable>:
  Sendable
{
  /// The file the state is saved to.
  public let file: URL
  /// The version of the format `Saved` is written in.
  public let schemaVersion: Int
  private let migrations: [Int: PersistenceMigration]
  private let select: @Sendable (State) -> Saved
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
  ///   - debounce: How long the state must stay unchanged before it is written.
  ///   - clock: The clock the debounce waits on; tests pass a `TestClock` to control it.
  ///   - maximumFileSize: Files larger than this are not read.
  ///   - maximumNestingDepth: JSON nested deeper than this is not read.
  ///   - select: The part of the state to save.
  public init(
    file: URL,
    schemaVersion: Int = 1,
    migrations: [Int: PersistenceMigration] = [:],
    debounce: Interval = .milliseconds(500),
    clock: any ThunkClock = SystemThunkClock(),
    maximumFileSize: Int = 10 * 1_024 * 1_024,
    maximumNestingDepth: Int = 64,
    select: @escaping @Sendable (State) -> Saved
  ) {
    self.file = file
    self.schemaVersion = schemaVersion
    self.migrations = migrations
    self.debounce = debounce
    self.maximumFileSize = maximumFileSize
    self.maximumNestingDepth = maximumNestingDepth
    self.select = select
    writer = PersistenceWriter(file: file, clock: clock)
  }

  // MARK: Restoring

  /// Reads the saved state.
  ///
  /// - Returns: The saved value, `nil` if nothing was saved yet, or the error that says why
  ///   the file could not be used; that file has then been moved aside.
  public func restore() -> Result<Saved?, PersistenceError> {
    guard FileManager.default.fileExists(atPath: file.path) else { return .success(nil) }
    do {
      return .success(try decode(try read()))
    } catch let reason as PersistenceError.Reason {
      return .failure(PersistenceError(reason: reason, file: file, movedAsideTo: moveAside()))
    } catch {
      return .failure(
        PersistenceError(
          reason: .fileSystem(String(describing: error)), file: file, movedAsideTo: nil))
    }
  }

  private func read() throws -> Data {
    let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
    let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
    guard size <= maximumFileSize else {
      throw PersistenceError.Reason.tooLarge(bytes: size, limit: maximumFileSize)
    }
    return try Data(contentsOf: file)
  }

  private func decode(_ data: Data) throws -> Saved {
    guard nestingDepth(of: data, exceeds: maximumNestingDepth) == false else {
      throw PersistenceError.Reason.tooDeeplyNested(limit: maximumNestingDepth)
    }
    let envelope: Envelope<JSONValue>
    do {
      envelope = try JSONDecoder().decode(Envelope<JSONValue>.self, from: data)
    } catch {
      throw PersistenceError.Reason.corrupt(Self.explain(error))
    }
    guard envelope.schemaVersion <= schemaVersion else {
      throw PersistenceError.Reason.newerVersion(
        found: envelope.schemaVersion, supported: schemaVersion)
    }
    var payload = envelope.payload
    var version = envelope.schemaVersion
    while version < schemaVersion {
      guard let migrate = migrations[version] else {
        throw PersistenceError.Reason.missingMigration(from: version)
      }
      do {
        payload = try migrate(payload)
      } catch {
        throw PersistenceError.Reason.migrationFailed(
          from: version, message: String(describing: error))
      }
      version += 1
    }
    do {
      if envelope.schemaVersion == schemaVersion {
        // Decode the original bytes, not the JSONValue round trip, so nothing is approximated.
        return try JSONDecoder().decode(Envelope<Saved>.self, from: data).payload
      }
      return try JSONDecoder().decode(Saved.self, from: JSONEncoder().encode(payload))
    } catch {
      throw PersistenceError.Reason.wrongType(Self.explain(error))
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
  public func save(_ value: Saved) throws {
    try writer.write(encode(value))
  }

  /// Writes the pending debounced save, if any, now, and returns once it is written.
  ///
  /// The pending save is also written on a normal exit and at the app lifecycle points; call
  /// this for a point of your own, such as the end of a test.
  /// - Complexity: One file write when a save is pending.
  public func flush() async {
    await writer.flush()
  }

  /// A middleware that saves the selected part after each action that changed it, debounced.
  ///
  /// Errors while saving go to `onError`; the previous file stays in place.
  ///
  /// - Parameter onError: Receives save errors.
  /// - Returns: The middleware.
  public func middleware(
    onError: @escaping @Sendable (PersistenceError) -> Void = { print($0) }
  ) -> Middleware<State> {
    let last = LockedBox<Saved?>(nil)
    return { [self] _, getState in
      { next in
        { action in
          next(action)
          guard let state = getState() else { return }
          let saved = self.select(state)
          let changed = last.withLock { last in
            defer { last = saved }
            return last != saved
          }
          guard changed else { return }
          do {
            let data = try self.encode(saved)
            self.writer.schedule(data, after: self.debounce, onError: onError)
          } catch let error as PersistenceError {
            onError(error)
          } catch {
            onError(
              PersistenceError(
                reason: .fileSystem(String(describing: error)), file: self.file,
                movedAsideTo: nil))
          }
        }
      }
    }
  }

  private func encode(_ value: Saved) throws -> Data {
    do {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      return try encoder.encode(Envelope(schemaVersion: schemaVersion, payload: value))
    } catch {
      throw PersistenceError(
        reason: .wrongType("cannot encode: \(error)"), file: file, movedAsideTo: nil)
    }
  }
}

/// The file format: the schema version beside the payload.
struct Envelope<Payload: Codable>: Codable {
  let schemaVersion: Int
  let payload: Payload
}

/// Whether `data` opens more than `limit` arrays or objects inside one another, found by
/// scanning outside strings (the decoder would recurse before it could be told).
func nestingDepth(of data: Data, exceeds limit: Int) -> Bool {
  var depth = 0
  var inString = false
  var escaped = false
  for byte in data {
    if inString {
      if escaped {
        escaped = false
      } else if byte == UInt8(ascii: "\\") {
        escaped = true
      } else if byte == UInt8(ascii: "\"") {
        inString = false
      }
      continue
    }
    switch byte {
    case UInt8(ascii: "\""): inString = true
    case UInt8(ascii: "["), UInt8(ascii: "{"):
      depth += 1
      if depth > limit { return true }
    case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
    default: break
    }
  }
  return false
}
