import Foundation

/// Why a persisted state could not be restored or saved, and where the file went.
///
/// A file that cannot be restored is never overwritten: it is renamed aside (see
/// ``movedAsideTo``) and the app starts from its initial state.
public struct PersistenceError: Error, Sendable, CustomStringConvertible {
  /// What went wrong.
  public enum Reason: Error, Sendable, Equatable {
    /// The file is larger than the limit.
    case tooLarge(bytes: Int, limit: Int)
    /// The JSON nests deeper than the limit.
    case tooDeeplyNested(limit: Int)
    /// The file is not the JSON this library writes; it may be truncated.
    case corrupt(String)
    /// The file was written by a newer schema version than the app supports.
    case newerVersion(found: Int, supported: Int)
    /// No migration goes from this version to the next.
    case missingMigration(from: Int)
    /// A migration threw.
    case migrationFailed(from: Int, message: String)
    /// The JSON does not fit the state's type.
    case wrongType(String)
    /// The path names a symbolic link, a folder, a device or a pipe, which are never read.
    case notARegularFile(String)
    /// The file could not be read or written.
    case fileSystem(String)
  }

  /// What went wrong.
  /// - Complexity: O(1).
  public let reason: Reason
  /// The file concerned.
  /// - Complexity: O(1).
  public let file: URL
  /// Where the unreadable file was moved, kept for inspection; `nil` if it was not moved.
  /// - Complexity: O(1).
  public let movedAsideTo: URL?

  /// A sentence that says what is wrong and what happened to the file.
  /// - Complexity: O(*n*) for a path and details of *n* characters.
  public var description: String {
    let what: String
    switch reason {
    case .tooLarge(let bytes, let limit):
      what = "is \(bytes) bytes, more than the limit of \(limit)"
    case .tooDeeplyNested(let limit):
      what = "nests JSON deeper than \(limit) levels"
    case .corrupt(let detail):
      what = "is not valid saved state (\(detail)); it may be truncated"
    case .newerVersion(let found, let supported):
      what = "was saved by schema version \(found); this app reads up to \(supported)"
    case .missingMigration(let from):
      what = "has schema version \(from) and no migration goes from it to \(from + 1)"
    case .migrationFailed(let from, let message):
      what = "could not be migrated from version \(from): \(message)"
    case .wrongType(let detail):
      what = "does not match the state's type: \(detail)"
    case .notARegularFile(let detail):
      what = "was not read: \(detail)"
    case .fileSystem(let detail):
      what = "could not be read or written: \(detail)"
    }
    let kept = movedAsideTo.map { "; it was kept as \($0.lastPathComponent)" } ?? ""
    return "The saved state at \(file.path) \(what)\(kept)."
  }
}
