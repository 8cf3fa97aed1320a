import Foundation
import Statecraft

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The action types a recording can write and read back, by name.
///
/// Actions that are `Codable` and registered are recorded with their values and can be
/// replayed; others are recorded by type name only and reported as not replayable.
///
/// ```swift
/// var registry = ActionRegistry()
/// registry.register(CounterAction.self)
/// registry.register(SetFilms.self)
/// ```
public struct ActionRegistry: Sendable {
  private var decoders: [String: @Sendable (Data) throws -> any Action] = [:]
  private var encoders: [ObjectIdentifier: @Sendable (any Action) throws -> Data] = [:]

  /// Creates an empty registry.
  /// - Complexity: O(1).
  public init() {}

  /// Registers a `Codable` action type.
  ///
  /// - Parameter type: The action type.
  /// - Complexity: O(*k*) amortized for a type name of *k* characters: two dictionary
  ///   insertions.
  public mutating func register<Recorded: Action & Codable>(_ type: Recorded.Type) {
    let name = Self.name(of: type)
    decoders[name] = { data in try JSONDecoder().decode(Recorded.self, from: data) }
    encoders[ObjectIdentifier(type)] = { action in
      guard let action = action as? Recorded else { throw CocoaError(.coderInvalidValue) }
      return try JSONEncoder().encode(action)
    }
  }

  /// This registry with the types of `other` added, such as the registries of two features.
  ///
  /// - Parameter other: Another registry; for a type in both, its entry wins.
  /// - Returns: The combined registry.
  /// - Complexity: O(*n*) for *n* registered types in `other`.
  public func merging(_ other: ActionRegistry) -> ActionRegistry {
    var merged = self
    merged.decoders.merge(other.decoders) { _, theirs in theirs }
    merged.encoders.merge(other.encoders) { _, theirs in theirs }
    return merged
  }

  static func name(of type: Any.Type) -> String {
    String(reflecting: type)
  }

  func encode(_ action: any Action) -> Data? {
    guard let encode = encoders[ObjectIdentifier(Swift.type(of: action))] else { return nil }
    return try? encode(action)
  }

  func decoder(for name: String) -> (@Sendable (Data) throws -> any Action)? {
    decoders[name]
  }
}

/// Records every action a store reduces, with its time, to a JSON Lines file.
///
/// ```swift
/// let recorder = try ActionRecorder<AppState>(file: recordingURL, registry: registry)
/// let mainStore = Store(reducer: appReducer, state: nil, middleware: [recorder.middleware()])
/// ```
///
/// Each line is one action: its index, the seconds since recording started, its type name,
/// and its value when the type is registered and `Codable` (else `null`, and the line says it
/// cannot be replayed). Lines are flushed as they are written.
public final class ActionRecorder<State: Sendable>: Sendable {
  private let output: Locked<(descriptor: Int32, index: Int)>
  private let registry: ActionRegistry
  private let onError: @Sendable (any Error) -> Void
  private let start = MonotonicClock.now

  /// Starts a recording, replacing the file.
  ///
  /// The file is created readable by the user only, with that mode from the `open` call on,
  /// and written through that one descriptor; a symbolic link at its path is refused.
  ///
  /// - Parameters:
  ///   - file: Where to write.
  ///   - registry: The action types that can be replayed.
  ///   - onError: Receives the errors of later writes (a full disk, for example); the
  ///     recording goes on with the next action. By default they are printed.
  /// - Throws: The file system's error if the file cannot be created.
  /// - Complexity: O(1).
  public init(
    file: URL, registry: ActionRegistry,
    onError: @escaping @Sendable (any Error) -> Void = { print("ActionRecorder: \($0)") }
  ) throws {
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    // Replacing: remove the old file, then create the new one exclusively, so that it never
    // has another mode and never is a file someone else holds open.
    if unlink(file.path) != 0, errno != ENOENT {
      throw AtomicFile.posixError("replace \(file.lastPathComponent)")
    }
    let descriptor = open(
      file.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_APPEND, 0o600)
    guard descriptor >= 0 else { throw AtomicFile.posixError("create \(file.lastPathComponent)") }
    output = Locked((descriptor, 0))
    self.registry = registry
    self.onError = onError
  }

  deinit {
    close()
  }

  /// A middleware that records each action that reaches it, before passing it on.
  ///
  /// Put it last in the middleware array, so it records what the reducer receives.
  ///
  /// - Returns: The middleware.
  /// - Complexity: O(1) to build; each action then costs one ``record(_:)``.
  public func middleware() -> Middleware<State> {
    { _, _ in
      { next in
        { [self] action in
          record(action)
          next(action)
        }
      }
    }
  }

  /// Records `action` as the next line.
  ///
  /// - Parameter action: The action.
  /// - Complexity: O(*n*) for an action that encodes to *n* bytes of JSON, plus one file write.
  public func record(_ action: any Action) {
    let seconds = Double(MonotonicClock.now - start) / 1e9
    let payload = registry.encode(action)
    output.withLock { state in
      let line = RecordedLine(
        index: state.index, time: seconds, type: ActionRegistry.name(of: type(of: action)),
        payload: payload.flatMap { try? JSONDecoder().decode(JSONValue.self, from: $0) })
      state.index += 1
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      guard state.descriptor >= 0 else { return }
      do {
        var data = try encoder.encode(line)
        data.append(UInt8(ascii: "\n"))
        try AtomicFile.writeAll(data, to: state.descriptor, name: "the recording")
      } catch {
        onError(error)
      }
    }
  }

  /// Flushes and closes the file.
  ///
  /// Actions recorded afterwards are dropped.
  /// - Complexity: One `fsync` and one `close` of the file.
  public func close() {
    output.withLock { state in
      guard state.descriptor >= 0 else { return }
      _ = fsync(state.descriptor)
      _ = Foundation.close(state.descriptor)
      state.descriptor = -1
    }
  }
}

struct RecordedLine: Codable {
  let index: Int
  let time: Double
  let type: String
  let payload: JSONValue?
}

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
    /// The action, or `nil` when it cannot be replayed (see ``Recording/problems``).
    /// - Complexity: O(1).
    public let action: (any Action)?
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
      case .unknownType(let name):
        "line \(line): the action type \(name) is not registered, so it cannot be replayed"
      case .notReplayable(let name):
        "line \(line): \(name) was recorded by name only (not Codable and registered)"
      case .unreadableLine(let detail):
        "line \(line): not a recorded action (\(detail)); reading stopped here"
      case .lineTooLong(let limit):
        "line \(line): longer than \(limit) bytes; reading stopped here"
      case .cut(let limit):
        "line \(line): the recording goes on past the limit of \(limit) bytes and was cut here"
      }
    }
  }

  /// The actions read, in order, up to the first unreadable line.
  /// - Complexity: O(1).
  public let entries: [Entry]
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
  /// The default limit on the length of one line: 1 MiB.
  /// - Complexity: O(1).
  public static let defaultMaximumLineLength = 1_024 * 1_024

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

  private init(_ reader: LineReader) {
    lines = reader.lines
    entries = reader.entries
    problems = reader.problems
    stoppedAtLine = reader.stopped
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

/// Splits JSON Lines arriving in blocks into lines and decodes each, holding one line at a time.
private struct LineReader {
  let registry: ActionRegistry
  let maximumLineLength: Int
  var entries: [Recording.Entry] = []
  var problems: [Recording.Problem] = []
  var stopped: Int?
  var lines: [String] = []
  private var line: [UInt8] = []
  private var number = 1
  private let decoder = JSONDecoder()
  private let encoder = JSONEncoder()

  init(registry: ActionRegistry, maximumLineLength: Int) {
    self.registry = registry
    self.maximumLineLength = maximumLineLength
  }

  mutating func consume<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
    var rest = bytes[...]
    while stopped == nil, !rest.isEmpty {
      let end = rest.firstIndex(of: UInt8(ascii: "\n"))
      let piece = rest[..<(end ?? rest.endIndex)]
      if line.count + piece.count > maximumLineLength {
        stop(.lineTooLong(limit: maximumLineLength))
        return
      }
      line.append(contentsOf: piece)
      guard let end else { return }
      decodeLine()
      rest = rest[rest.index(after: end)...]
    }
  }

  /// Reads a last line that has no newline.
  mutating func finish() {
    if stopped == nil, !line.isEmpty { decodeLine() }
  }

  mutating func cut(limit: Int) {
    stop(.cut(limit: limit))
  }

  private mutating func stop(_ reason: Recording.Problem.Reason) {
    problems.append(Recording.Problem(line: number, reason: reason))
    stopped = number
  }

  private mutating func decodeLine() {
    defer {
      line.removeAll(keepingCapacity: true)
      if stopped == nil { number += 1 }
    }
    if line.isEmpty {
      lines.append("")
      return
    }
    guard let recorded = try? decoder.decode(RecordedLine.self, from: Data(line)) else {
      stop(.unreadableLine("invalid JSON"))
      return
    }
    var action: (any Action)?
    if let payload = recorded.payload {
      if let decode = registry.decoder(for: recorded.type) {
        do {
          action = try decode(encoder.encode(payload))
        } catch {
          stop(.unreadableLine("\(recorded.type): \(error)"))
          return
        }
      } else {
        problems.append(Recording.Problem(line: number, reason: .unknownType(recorded.type)))
      }
    } else {
      problems.append(Recording.Problem(line: number, reason: .notReplayable(recorded.type)))
    }
    lines.append(String(decoding: line, as: UTF8.self))
    entries.append(
      Recording.Entry(line: number, time: recorded.time, typeName: recorded.type, action: action))
  }
}
