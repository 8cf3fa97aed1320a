import Foundation
import Statecraft
import StatecraftPrimitives

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Records every action a store reduces, and the state after it, to a JSON Lines file that any
/// tool can read without the app's code.
///
/// ```swift
/// let recorder = try ActionRecorder<AppState>(
///   file: recordingURL, registry: registry, redacting: { $0.hasPrefix("session.") })
/// let mainStore = Store(reducer: appReducer, state: nil, middleware: [recorder.middleware()])
/// ```
///
/// The file starts with a header that names the format's version and the state's type, then
/// holds a line per action: its index, the seconds since recording started, its type name, its
/// value when the type is registered and `Codable` (else `null`: it cannot be replayed), and,
/// for an `Encodable` state, the state after it: whole for the first and every
/// ``RecordingLimits/snapshotInterval``-th, else what changed. ``RecordingFormat`` describes
/// every field.
///
/// A dispatch only hands the action and the new state over; a background thread encodes and
/// writes them. ``RecordingLimits`` bounds what waits for that thread and says what is dropped,
/// and recorded as dropped, when it falls behind; a dispatch never waits for it.
/// ``close()`` writes what is pending.
public final class ActionRecorder<State: Sendable>: Sendable {
  private let descriptor: Locked<Int32>
  private let stream: StateStream<State>
  /// The action types it records with their values.
  private let registry: ActionRegistry

  /// Starts a recording with the default limits and no redaction, replacing the file.
  ///
  /// Behaves as ``init(file:registry:redacting:limits:onError:)``.
  ///
  /// - Parameters:
  ///   - file: Where to write.
  ///   - registry: The action types that can be replayed.
  ///   - onError: Receives the errors of later writes (a full disk, for example); the
  ///     recording goes on with the next action. By default they are printed.
  /// - Throws: The file system's error if the file cannot be created.
  /// - Complexity: O(1), and a thread that writes.
  public convenience init(
    file: URL, registry: ActionRegistry,
    onError: @escaping @Sendable (any Error) -> Void = { print("ActionRecorder: \($0)") }
  ) throws {
    try self.init(
      file: file, registry: registry, redacting: nil, limits: RecordingLimits(), onError: onError)
  }

  /// Starts a recording of the actions and the states after them, replacing the file.
  ///
  /// The states are recorded when `State` is `Encodable`; else the recording holds the actions
  /// only.
  ///
  /// The file is created readable by the user only, with that mode from the `open` call on,
  /// and written through that one descriptor; a symbolic link at its path is refused.
  ///
  /// - Parameters:
  ///   - file: Where to write.
  ///   - registry: The action types that can be replayed.
  ///   - redacting: Returns `true` for the paths whose values must not be written; they are
  ///     written as `"<redacted>"`. State paths are keys and indices joined by dots
  ///     (`"session.token"`); action paths start with `action` (`"action.login.password"`), as
  ///     ``createLoggingMiddleware(to:isEnabled:redacting:)`` names them.
  ///   - limits: What may wait for the writer, and how often a state is written whole.
  ///   - onError: Receives the errors of later writes (a full disk, for example); the
  ///     recording goes on with the next action. By default they are printed.
  /// - Throws: The file system's error if the file cannot be created.
  /// - Complexity: O(1), and a thread that writes.
  public init(
    file: URL, registry: ActionRegistry,
    redacting: (@Sendable (_ path: String) -> Bool)? = nil,
    limits: RecordingLimits = RecordingLimits(),
    onError: @escaping @Sendable (any Error) -> Void = { print("ActionRecorder: \($0)") }
  ) throws {
    let descriptor = try Self.create(file)
    self.descriptor = descriptor
    self.registry = registry
    stream = StateStream(
      header: Self.header(limits: limits, isRedacted: redacting != nil), registry: registry,
      encoder: StateEncoderFactory(for: State.self), limits: limits, redacting: redacting,
      pollInterval: 0.005, sink: Self.sink(descriptor), onError: onError)
  }

  /// Starts a recording that hands its lines to `sink` instead of a file: for tests that make the
  /// writer slow.
  package init(
    sink: @escaping StateStream<State>.Sink, registry: ActionRegistry,
    redacting: (@Sendable (String) -> Bool)? = nil, limits: RecordingLimits = RecordingLimits(),
    pollInterval: Double = 0
  ) {
    descriptor = Locked(-1)
    self.registry = registry
    stream = StateStream(
      header: Self.header(limits: limits, isRedacted: redacting != nil), registry: registry,
      encoder: StateEncoderFactory(for: State.self), limits: limits, redacting: redacting,
      pollInterval: pollInterval, sink: sink, onError: { print("ActionRecorder: \($0)") })
  }

  deinit {
    close()
  }

  static func header(limits: RecordingLimits, isRedacted: Bool) -> RecordingFormat.Header {
    let isEncodable = StateEncoderFactory(for: State.self) != nil
    return RecordingFormat.Header(
      stateType: isEncodable ? String(reflecting: State.self) : nil,
      startedAt: Date().timeIntervalSince1970,
      snapshotInterval: isEncodable ? limits.snapshotInterval : nil, isRedacted: isRedacted)
  }

  private static func create(_ file: URL) throws -> Locked<Int32> {
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
    return Locked(descriptor)
  }

  private static func sink(_ descriptor: Locked<Int32>) -> StateStream<State>.Sink {
    { bytes in
      try descriptor.withLock { descriptor in
        guard descriptor >= 0 else { return }
        try AtomicFile.writeAll(Data(bytes), to: descriptor, name: "the recording")
      }
    }
  }

  /// A middleware that hands each action, and the state after it, to the recorder.
  ///
  /// Put it last in the middleware array, so that it records what the reducer receives and the
  /// state the reducer returns.
  ///
  /// - Returns: The middleware.
  /// - Complexity: O(1) to build; each action then costs one read of the state and an append to
  ///   the recorder's buffer, under a lock.
  public func middleware() -> Middleware<State> {
    { [stream, registry] _, getState in
      let isFirst = AtomicCell(true)
      #if DEBUG
        let unrecordable = UnrecordableActions(registry: registry)
      #endif
      return { next in
        { action in
          #if DEBUG
            unrecordable.check(action)
          #endif
          // The state before the first action, for a store created with a state.
          let before =
            stream.tracksStates && isFirst.load(ordering: .relaxed)
              && isFirst.exchange(false, ordering: .relaxed) ? boxedState(getState) : nil
          next(action)
          stream.enqueue(
            action, state: stream.tracksStates ? boxedState(getState) : nil, before: before)
        }
      }
    }
  }

  /// Records `action` as the next line, without a state.
  ///
  /// - Parameter action: The action.
  /// - Complexity: O(1) amortized: an append to the recorder's buffer, under a lock.
  public func record(_ action: any Action) {
    stream.enqueue(action, state: nil)
  }

  /// Records `action` and the state after it as the next line.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - state: The state after it.
  /// - Complexity: O(1) amortized: an append to the recorder's buffer, under a lock.
  public func record(_ action: any Action, state: State) {
    stream.enqueue(action, state: state)
  }

  /// What was written so far, and what was dropped because the writer fell behind.
  /// - Complexity: O(1): a lock.
  public var statistics: RecordingStatistics {
    stream.statistics
  }

  /// Waits until every action recorded before the call is written to the file.
  ///
  /// - Complexity: The writer's work on what is pending.
  public func flush() {
    stream.flush()
  }

  /// Writes what is pending, flushes and closes the file.
  ///
  /// Actions recorded afterwards are dropped.
  /// - Complexity: The writer's work on what is pending, one `fsync` and one `close`.
  public func close() {
    stream.close()
    descriptor.withLock { descriptor in
      guard descriptor >= 0 else { return }
      _ = fsync(descriptor)
      _ = Foundation.close(descriptor)
      descriptor = -1
    }
  }
}

/// An action the tools dispatch to drive a store, such as a live page's command or a jump in
/// time: recorded by name, never reported as unrecordable, and logged as what the tool does.
protocol ToolAction: Action {
  /// What the tool does, as the logging middleware prints it, numbering steps as the pages do.
  var toolDescription: String { get }
}

#if DEBUG
  /// The development check of debug builds that reports, once per type, an action a recorder
  /// writes by name only because its registry cannot encode it (`DevelopmentChecks`).
  final class UnrecordableActions: Sendable {
    private let registry: ActionRegistry
    private let checked = Locked(Set<ObjectIdentifier>())

    init(registry: ActionRegistry) {
      self.registry = registry
    }

    func check(_ action: any Action) {
      let type = Swift.type(of: action)
      guard checked.withLock({ $0.insert(ObjectIdentifier(type)).inserted }),
        StatecraftDiagnostics.reportsUnrecordableActions, !(action is any ToolAction),
        let problem = problem(with: action)
      else { return }
      StatecraftDiagnostics.report(
        """
        \(problem) StatecraftDiagnostics.developmentChecks.unrecordableActions = false switches \
        this check off.
        """)
    }

    /// What the recorder cannot do with actions of the type of `action`, and the fix.
    private func problem(with action: any Action) -> String? {
      let type = Swift.type(of: action)
      let name = String(describing: type)
      if let lifecycle = type as? any AnyThunkLifecycle.Type {
        guard registry.decoder(for: ActionRegistry.name(of: type)) == nil else { return nil }
        let value = String(describing: lifecycle.valueType)
        guard lifecycle.valueType is any Codable.Type else {
          return """
            the action recorder writes \(name) by its thunk's name and phase only: \(value) is \
            not Codable, so the recording cannot replay it. Make \(value) Codable, then \
            register it: registry.register(\(name).self).
            """
        }
        return """
          the action recorder writes \(name) with its thunk's name, phase and value, but its \
          ActionRegistry cannot read it back, so a replay skips it. Register it: \
          registry.register(\(name).self).
          """
      }
      guard !registry.canEncode(type) else { return nil }
      let fix =
        action is any Encodable
        ? "Register it: registry.register(\(name).self)."
        : "Make \(name) Codable, then register it: registry.register(\(name).self)."
      return """
        the action recorder writes \(name) by name only: its ActionRegistry cannot encode it, so \
        the recording cannot show its values or replay it. \(fix)
        """
    }
  }
#endif
