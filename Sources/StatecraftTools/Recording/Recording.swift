import Foundation
import Statecraft

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A recording read back: the actions it holds, and what could not be read.
public struct Recording: Sendable {
  /// One recorded action.
  public struct Entry: Sendable {
    /// The line number in the file, from 1.
    /// - Complexity: O(1).
    public let line: Int
    /// Seconds from the start of the recording.
    /// - Complexity: O(1).
    public let time: Double
    /// The action's type name.
    /// - Complexity: O(1).
    public let typeName: String
    /// The action, or `nil` when it cannot be replayed (see ``Recording/problems``), the
    /// recording was read without a registry, or it is `StatecraftInit`, which a store
    /// dispatches itself.
    /// - Complexity: O(1).
    public let action: (any Action)?
    /// The action as JSON, or `nil` when it was recorded by name only.
    /// - Complexity: O(1).
    public let payload: JSONValue?
    /// The index the recorder gave the action, from 0; actions it dropped leave gaps.
    /// - Complexity: O(1).
    public let index: Int
    /// What the line says of the state after the action.
    package let state: RecordedState

    package init(
      line: Int, time: Double, typeName: String, action: (any Action)?, payload: JSONValue?,
      index: Int, state: RecordedState
    ) {
      self.line = line
      self.time = time
      self.typeName = typeName
      self.action = action
      self.payload = payload
      self.index = index
      self.state = state
    }
  }

  /// Actions the recorder did not write because its writer fell behind: a gap line.
  public struct Gap: Sendable {
    /// The line number in the file, from 1.
    /// - Complexity: O(1).
    public let line: Int
    /// The index of the first action dropped.
    /// - Complexity: O(1).
    public let from: Int
    /// How many actions were dropped.
    /// - Complexity: O(1).
    public let count: Int
    /// How many entries come before the gap.
    /// - Complexity: O(1).
    public let beforeEntry: Int
    /// The state after the last action dropped, if the line holds it.
    package let state: RecordedState
  }

  /// Something in the file that could not be used, with its line.
  public struct Problem: Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
      /// The action type is not in the registry.
      case unknownType(String)
      /// The action was recorded by name only: it was not `Codable` and registered.
      case notReplayable(String)
      /// The line is not a recorded action; reading stopped here.
      case unreadableLine(String)
      /// The line is longer than the limit; reading stopped here.
      case lineTooLong(limit: Int)
      /// The file goes on past the size limit; reading stopped at this line, which is the
      /// first one not read.
      case cut(limit: Int)
      /// The recorder dropped `count` actions from index `from` on, because its writer fell
      /// behind (see ``RecordingLimits``).
      case actionsDropped(from: Int, count: Int)
    }

    /// The line number in the file, from 1.
    /// - Complexity: O(1).
    public let line: Int
    /// What went wrong.
    /// - Complexity: O(1).
    public let reason: Reason

    /// A sentence that names the line and the problem.
    /// - Complexity: O(*n*) for a type name or detail of *n* characters.
    public var description: String {
      switch reason {
      case .unknownType(let name) where ActionNames.isLifecycle(name):
        "line \(line): \(name) is not registered, so it cannot be replayed: "
          + "registry.register(\(ActionNames.shortTypeName(name)).self)"
      case .unknownType(let name):
        "line \(line): the action type \(name) is not registered, so it cannot be replayed"
      case .notReplayable(let name) where ActionNames.isLifecycle(name):
        "line \(line): \(name) was recorded by its thunk's name and phase without its value, "
          + "which is not Codable, so it cannot be replayed"
      case .notReplayable(let name):
        "line \(line): \(name) was recorded by name only (not Codable and registered)"
      case .unreadableLine(let detail):
        "line \(line): not a recorded action (\(detail)); reading stopped here"
      case .lineTooLong(let limit):
        "line \(line): longer than \(limit) bytes; reading stopped here"
      case .cut(let limit):
        "line \(line): the recording goes on past the limit of \(limit) bytes and was cut here"
      case .actionsDropped(let from, let count):
        "line \(line): \(RecordedGap.describe(from: from, count: count)) were not recorded: "
          + "the recorder's writer fell behind"
      }
    }
  }

  /// The header line, or `nil` for a recording of format 1, which has none.
  /// - Complexity: O(1).
  public let header: RecordingFormat.Header?
  /// The actions read, in order, up to the first unreadable line.
  /// - Complexity: O(1).
  public let entries: [Entry]
  /// The gap lines read, in order: actions the recorder dropped.
  /// - Complexity: O(1).
  public let gaps: [Gap]
  /// How many actions were written without their state because the writer fell behind.
  /// - Complexity: O(1).
  public let droppedStates: Int
  /// The state before the first action, when the first line holds it.
  package let initialState: JSONValue?
  /// The problems found, in order of line.
  /// - Complexity: O(1).
  public let problems: [Problem]
  /// The text of the lines read, empty ones included, up to the line where reading stopped: what
  /// a generated test embeds to read the same entries.
  package let lines: [String]
  /// The line where reading stopped because it was unreadable (a truncated or corrupt file);
  /// `nil` if the whole file was read.
  /// - Complexity: O(1).
  public let stoppedAtLine: Int?

  /// The default limit on the bytes of a recording that are read: 256 MiB.
  /// - Complexity: O(1).
  public static let defaultMaximumFileSize = 256 * 1_024 * 1_024
  /// The default limit on the length of one line: 16 MiB, for lines that hold a whole state.
  /// - Complexity: O(1).
  public static let defaultMaximumLineLength = 16 * 1_024 * 1_024

  /// The error for a path that names a folder, a pipe, a device or a socket instead of a file.
  public struct NotAFileError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The path that was given.
    /// - Complexity: O(1).
    public let path: String

    /// A sentence that names the path and what a recording is.
    /// - Complexity: O(*n*) for a path of *n* characters.
    public var description: String {
      "\(path) is not a regular file (a folder, a pipe or a device); a recording is a file"
    }

    /// The same sentence as ``description``.
    /// - Complexity: O(*n*) for a path of *n* characters.
    public var errorDescription: String? { description }
  }

  /// Reads a recording, line by line.
  ///
  /// The file is opened once, without following a symbolic link, and read in blocks: memory
  /// holds one line and the entries read, never the whole file. Reading stops, with a problem
  /// that names the line, at the first unreadable line, at a line longer than
  /// `maximumLineLength`, or once `maximumFileSize` bytes were read
  /// (``Problem/Reason/cut(limit:)``): what came before is kept.
  ///
  /// - Parameters:
  ///   - file: The JSON Lines file an ``ActionRecorder`` wrote.
  ///   - registry: The action types to decode.
  ///   - maximumFileSize: How many bytes to read at most.
  ///   - maximumLineLength: How long one line may be.
  /// - Throws: ``NotAFileError`` if the path names a folder, a pipe or a device (checked before
  ///   anything is read, so a pipe never blocks), or the file system's error if the file cannot
  ///   be opened or read.
  /// - Complexity: O(*n*) for *n* bytes read.
  public init(
    contentsOf file: URL, registry: ActionRegistry,
    maximumFileSize: Int = Recording.defaultMaximumFileSize,
    maximumLineLength: Int = Recording.defaultMaximumLineLength
  ) throws {
    try self.init(
      file: file, registry: Optional(registry), maximumFileSize: maximumFileSize,
      maximumLineLength: maximumLineLength)
  }

  /// Reads a recording without the app's code: the actions as JSON, not decoded.
  ///
  /// Behaves as ``init(contentsOf:registry:maximumFileSize:maximumLineLength:)``, with every
  /// entry's ``Entry/action`` `nil` and its ``Entry/payload`` read. What a generic tool such as
  /// `inspect` uses.
  ///
  /// - Parameters:
  ///   - file: The JSON Lines file an ``ActionRecorder`` wrote.
  ///   - maximumFileSize: How many bytes to read at most.
  ///   - maximumLineLength: How long one line may be.
  /// - Throws: ``NotAFileError`` if the path names a folder, a pipe or a device, or the file
  ///   system's error if the file cannot be opened or read.
  /// - Complexity: O(*n*) for *n* bytes read.
  public init(
    contentsOf file: URL, maximumFileSize: Int = Recording.defaultMaximumFileSize,
    maximumLineLength: Int = Recording.defaultMaximumLineLength
  ) throws {
    try self.init(
      file: file, registry: nil, maximumFileSize: maximumFileSize,
      maximumLineLength: maximumLineLength)
  }

  private init(
    file: URL, registry: ActionRegistry?, maximumFileSize: Int, maximumLineLength: Int
  ) throws {
    let descriptor = open(file.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { throw AtomicFile.posixError("open \(file.lastPathComponent)") }
    defer { _ = Foundation.close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      throw NotAFileError(path: file.path)
    }
    var reader = LineReader(registry: registry, maximumLineLength: maximumLineLength)
    var block = [UInt8](repeating: 0, count: 64 * 1_024)
    var total = 0
    while reader.stopped == nil {
      let count = block.withUnsafeMutableBytes { buffer in
        Foundation.read(descriptor, buffer.baseAddress, buffer.count)
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw AtomicFile.posixError("read \(file.lastPathComponent)")
      }
      if count == 0 { break }
      let allowed = min(count, maximumFileSize - total)
      reader.consume(block[..<allowed])
      total += allowed
      if allowed < count, reader.stopped == nil {
        reader.cut(limit: maximumFileSize)
      }
    }
    reader.finish()
    self.init(reader)
  }

  /// Reads a recording from its bytes.
  ///
  /// - Parameters:
  ///   - data: The JSON Lines an ``ActionRecorder`` wrote.
  ///   - registry: The action types to decode.
  ///   - maximumLineLength: How long one line may be.
  /// - Complexity: O(*n*) for *n* bytes.
  public init(
    data: Data, registry: ActionRegistry,
    maximumLineLength: Int = Recording.defaultMaximumLineLength
  ) {
    var reader = LineReader(registry: registry, maximumLineLength: maximumLineLength)
    reader.consume(data[...])
    reader.finish()
    self.init(reader)
  }

  /// Reads a recording from its bytes without the app's code: the actions as JSON, not decoded.
  ///
  /// - Parameters:
  ///   - data: The JSON Lines an ``ActionRecorder`` wrote.
  ///   - maximumLineLength: How long one line may be.
  /// - Complexity: O(*n*) for *n* bytes.
  public init(data: Data, maximumLineLength: Int = Recording.defaultMaximumLineLength) {
    var reader = LineReader(registry: nil, maximumLineLength: maximumLineLength)
    reader.consume(data[...])
    reader.finish()
    self.init(reader)
  }

  private init(_ reader: LineReader) {
    header = reader.header
    lines = reader.lines
    entries = reader.entries
    gaps = reader.gaps
    droppedStates = reader.droppedStates
    initialState = reader.initialState
    problems = reader.problems
    stoppedAtLine = reader.stopped
  }

  /// Whether the recording holds the state after each action, so that a tool can show it
  /// without the app's code: format 2 with an `Encodable` state.
  /// - Complexity: O(1).
  public var hasStates: Bool {
    header?.stateType != nil
  }

  /// Replays the recording into `store`, in order, skipping actions that cannot be replayed.
  ///
  /// - Parameter store: A store, usually fresh, with the reducer that was recorded.
  /// - Returns: How many actions were replayed.
  /// - Complexity: O(*n*) for *n* entries, plus one `Store.dispatch(_:)` of each replayable action.
  @discardableResult
  public func replay<State>(into store: Store<State>) -> Int {
    var replayed = 0
    for entry in entries {
      guard let action = entry.action else { continue }
      store.dispatch(action)
      replayed += 1
    }
    return replayed
  }

  /// The state after the first `count` replayable actions, reduced from `initialState`.
  ///
  /// - Parameters:
  ///   - count: How many entries to apply.
  ///   - reducer: The app's reducer.
  ///   - initialState: The state before the first action, or `nil` for the reducer's own.
  /// - Returns: The state.
  /// - Complexity: O(*c*) for *c* = `count`, plus the reducer's work: one reduction of the initial
  ///   action and one of each replayable action among the first `count` entries.
  public func state<State>(
    after count: Int, reducer: Reducer<State>, initialState: State? = nil
  ) -> State {
    var state = reducer(StatecraftInit(), initialState)
    for entry in entries.prefix(count) {
      if let action = entry.action { state = reducer(action, state) }
    }
    return state
  }
}
