import Foundation
import Statecraft
import StatecraftPrimitives

// The live inspection, its connection to the inspector and its lifetime. What each dispatch
// does is in LiveInspection+Middleware.swift, the page's commands in LiveInspection+Commands.swift.

/// Streams a store's actions and states to `swift run inspect --live` as they happen, and lets
/// the inspector's page move the store back in time: for debug builds.
///
/// Nothing happens unless an app creates one; create it in debug builds only:
///
/// ```swift
/// #if DEBUG
///   let live = LiveInspection<AppState>.fromEnvironment(registry: appActions)
/// #else
///   let live: LiveInspection<AppState>? = nil
/// #endif
/// let mainStore = Store(
///   reducer: live?.reducer(appReducer) ?? appReducer, state: nil,
///   middleware: [live?.middleware()].compactMap { $0 })
/// ```
///
/// Run the app with `STATECRAFT_INSPECTOR` set to the address `inspect --live` prints
/// (`http://127.0.0.1:PORT/?token=…`), which is also the page to open.
/// ``fromEnvironment(registry:redacting:limits:historyLimit:stateInterval:reconnectInterval:)``
/// waits at most half a second for the inspector, then goes on connecting in the background: the
/// app starts whatever the inspector does, and streams once it answers.
///
/// Streaming uses the recorder's machinery: a dispatch hands the action, and the new state when
/// one is due, to a bounded buffer, and a background thread encodes and sends them
/// (``RecordingLimits`` says what is dropped when it falls behind). A state is sent at most once
/// every `stateInterval` (a frame, by default) while the app dispatches faster, and the state
/// after the last action of a burst as soon as the store is quiet: the page shows the steps
/// between as "not sent". Holding a state until it is encoded makes the store's next in-place
/// change copy what it changes, so sending every state (`stateInterval: .zero`) costs that copy
/// on every dispatch. The page can:
/// - jump to the state after any action the app still holds (the last `historyLimit`): the store
///   shows that state, and the app's new actions wait, in order, until the page resumes
///   (at most 10,000 wait; more are dropped, and the page says how many);
/// - resume: the store returns to the present, then the actions that waited are dispatched;
/// - skip an action, or take it back: the states after it are computed again with the app's
///   reducer, and the page shows them;
/// - show the state after an action whose state was not sent: the app computes it again from the
///   actions it holds, as for a jump, without changing the store;
/// - dispatch an action typed as JSON, which `registry` decodes;
/// - commit: make the present state the base, forgetting the actions before it; revert: return
///   the store to the base, forgetting the actions after it;
/// - lock the app: until unlocked, the middleware drops the actions the app dispatches itself
///   (counted on the page, with a warning on standard error), and takes the page's.
///
/// If the inspector goes away, the app keeps its history, encodes nothing for it
/// (``isConnected`` is `false`), and tries to connect again every `reconnectInterval`; an
/// inspector started again with the same port and token first gets the actions the app holds
/// (the last `historyLimit`), with their states computed again, then the stream.
///
/// The reducer wrapper and the middleware work together; put the middleware last.
///
/// > Important: The inspector receives the app's states and actions (minus what `redacting`
/// > names) and can change the app's state: it listens on 127.0.0.1 unless told otherwise and
/// > accepts only clients that present the token it printed.
public final class LiveInspection<State: Sendable>: Sendable {
  private let link: LiveLink
  let stream: StateStream<State>
  let registry: ActionRegistry
  let core: Locked<Core>
  /// What every dispatch reads, in one allocation: whether the page moved the store back in
  /// time, whether the store's first action went by, how many of the page's commands were
  /// dispatched and not yet carried out, and whether the reducer is to set the state (a load
  /// each, where a dynamic type check of every action cost more), and whether the page locked
  /// the app.
  @usableFromInline let words = AtomicWords(count: 5)
  var isPausedFlag: AtomicWord<Bool> { words[0] }
  var hasSeenFirstAction: AtomicWord<Bool> { words[1] }
  var commandsPending: AtomicWord<Int> { words[2] }
  /// Set around the page's state replacement, which the reducer wrapper returns.
  @usableFromInline static var isReplacing: Int { 3 }
  var isLockedFlag: AtomicWord<Bool> { words[4] }
  let reducerBox = Locked<Reducer<State>?>(nil)

  struct Core: Sendable {
    var history: LiveHistory<State>
    var dispatch: DispatchFunction?
    var pausedAt: Int?
    var waiting: [any Action] = []
    var droppedWhilePaused = 0
    /// Whether the page locked the app: its own actions are dropped, the page's pass.
    var isLocked = false
    var droppedWhileLocked = 0
    /// The page's dispatches on their way to the middleware while locked, by type name.
    var fromInspector: [String: Int] = [:]
  }

  /// The most actions that wait while the store is paused.
  static var maximumWaiting: Int { 10_000 }

  /// Connects to the live inspector at `url`, the address `inspect --live` printed.
  ///
  /// - Parameters:
  ///   - url: `http://HOST:PORT/?token=TOKEN`, as the inspector printed it.
  ///   - registry: The action types: their values are shown, and the page can dispatch them.
  ///   - redacting: Returns `true` for the paths whose values must not leave the app, as
  ///     ``ActionRecorder/init(file:registry:redacting:limits:onError:)`` names them.
  ///   - limits: What may wait to be sent.
  ///   - historyLimit: How many of the last actions the app keeps to move back in time.
  ///   - stateInterval: The shortest time between two states sent while the app dispatches
  ///     faster; `.zero` sends every state.
  ///   - reconnectInterval: How often to try again to connect once the inspector went away;
  ///     `.zero` not to try.
  /// - Throws: An error that says why, if the address is not an inspector's or nothing listens
  ///   there, the inspector refuses the token, or it does not answer within 5 seconds.
  /// - Complexity: O(1), a connection, and two threads (one sends, one receives the page's
  ///   commands and connects again).
  public convenience init(
    url: URL, registry: ActionRegistry, redacting: (@Sendable (_ path: String) -> Bool)? = nil,
    limits: RecordingLimits = RecordingLimits(), historyLimit: Int = 10_000,
    stateInterval: Interval = .milliseconds(16), reconnectInterval: Interval = .seconds(1)
  ) throws {
    let link = try Self.link(to: url, reconnectInterval: reconnectInterval)
    self.init(
      link: link, firstSocket: try link.connect(), registry: registry, redacting: redacting,
      limits: limits, historyLimit: historyLimit, stateInterval: stateInterval)
  }

  /// The link to the inspector at `url`, not connected yet.
  private static func link(to url: URL, reconnectInterval: Interval) throws -> LiveLink {
    guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
      components.scheme == "http", let host = components.host,
      let token = components.queryItems?.first(where: { $0.name == "token" })?.value
    else {
      throw LiveSocket.Failure(
        "\(url) is not a live inspector's address (http://HOST:PORT/?token=TOKEN)")
    }
    return LiveLink(
      host: host, port: UInt16(clamping: components.port ?? 80), token: token,
      reconnectInterval: reconnectInterval)
  }

  /// Starts the inspection over `link`: with `firstSocket`, streaming at once; without, the
  /// reading thread connects first, as it connects again after the inspector went away.
  private init(
    link: LiveLink, firstSocket: LiveSocket?, registry: ActionRegistry,
    redacting: (@Sendable (_ path: String) -> Bool)?, limits: RecordingLimits, historyLimit: Int,
    stateInterval: Interval
  ) {
    // Handed to the reading thread, which holds no connection longer than it uses it.
    let firstSocket = Locked<LiveSocket?>(firstSocket)
    self.link = link
    self.registry = registry
    let core = Locked(Core(history: LiveHistory(limit: historyLimit)))
    self.core = core
    // The history is kept on the writer's thread, before each action is sent: the page can only
    // name an action the history holds, and the dispatch path does not take `core`'s lock.
    var header = ActionRecorder<State>.header(limits: limits, isRedacted: redacting != nil)
    header.actionTypes = registry.typeNames
    stream = StateStream(
      header: header, registry: registry, encoder: StateEncoderFactory(for: State.self),
      limits: limits,
      redacting: redacting, pollInterval: 0.005, stateInterval: stateInterval,
      observer: { event in
        core.withLock { core in
          switch event {
          case .action(let index, let action, let time, _, let before):
            core.history.append(index: index, action: action, time: time, before: before)
          case .gap(_, _, let state):
            core.history.restart(from: state)
          }
        }
      },
      sink: { bytes in try link.send(bytes) },
      isSinkReceiving: { link.isSending },
      // The reading thread sees the connection end, and connects again.
      onError: { _ in link.dropConnection() })
    let thread = Thread { [weak self, link, stream] in
      var socket = firstSocket.withLock { socket in
        defer { socket = nil }
        return socket
      }
      // An inspector that connects late, or again, gets the actions the app holds first.
      let history: @Sendable (inout LineEncoder) -> [JSONValue] = { [weak self] encoder in
        self?.historyLines(&encoder) ?? []
      }
      if socket == nil {
        socket = link.reconnect(isFirst: true) { connect in stream.restart(connect, then: history) }
      }
      while let connected = socket {
        connected.readLines { line in self?.receive(line) }
        link.dropConnection()
        socket = link.reconnect { connect in stream.restart(connect, then: history) }
      }
      // Closed, or not connecting again: nothing more is encoded.
      stream.close()
    }
    thread.name = "Statecraft live inspection"
    thread.start()
  }

  /// Connects to the inspector named by the `STATECRAFT_INSPECTOR` environment variable, waiting
  /// at most half a second: the app starts whatever the inspector does.
  ///
  /// An inspector that answers within half a second gets every action from the first. If none
  /// answers (none runs, it is suspended, something else holds the port, it refuses the token),
  /// the reason is printed, the app goes on, and the inspection's thread tries again every
  /// `reconnectInterval`, as after the inspector went away: until it connects, ``isConnected``
  /// is `false` and the app keeps its history; once connected, the app sends the actions it
  /// holds, with their states computed again, then streams.
  ///
  /// - Parameters:
  ///   - registry: The action types: their values are shown, and the page can dispatch them.
  ///   - redacting: Returns `true` for the paths whose values must not leave the app.
  ///   - limits: What may wait to be sent.
  ///   - historyLimit: How many of the last actions the app keeps to move back in time.
  ///   - stateInterval: The shortest time between two states sent while the app dispatches
  ///     faster; `.zero` sends every state.
  ///   - reconnectInterval: How often to try again to connect, at first and once the inspector
  ///     went away; `.zero` to try once.
  /// - Returns: The inspection, or `nil` when the variable is not set or is not an inspector's
  ///   address, or the first attempt failed and `reconnectInterval` is `.zero` (the reason is
  ///   printed).
  /// - Complexity: A connection, at most half a second, and two threads (one sends, one
  ///   connects and receives the page's commands).
  public static func fromEnvironment(
    registry: ActionRegistry, redacting: (@Sendable (_ path: String) -> Bool)? = nil,
    limits: RecordingLimits = RecordingLimits(), historyLimit: Int = 10_000,
    stateInterval: Interval = .milliseconds(16), reconnectInterval: Interval = .seconds(1)
  ) -> LiveInspection? {
    fromEnvironment(
      ProcessInfo.processInfo.environment, registry: registry, redacting: redacting,
      limits: limits, historyLimit: historyLimit, stateInterval: stateInterval,
      reconnectInterval: reconnectInterval)
  }

  /// ``fromEnvironment(registry:redacting:limits:historyLimit:stateInterval:reconnectInterval:)``
  /// with the variables in `environment`.
  package static func fromEnvironment(
    _ environment: [String: String], registry: ActionRegistry,
    redacting: (@Sendable (_ path: String) -> Bool)? = nil,
    limits: RecordingLimits = RecordingLimits(), historyLimit: Int = 10_000,
    stateInterval: Interval = .milliseconds(16), reconnectInterval: Interval = .seconds(1)
  ) -> LiveInspection? {
    guard let address = environment["STATECRAFT_INSPECTOR"], !address.isEmpty else { return nil }
    do {
      guard let url = URL(string: address) else {
        throw LiveSocket.Failure("STATECRAFT_INSPECTOR is not an address: \(address)")
      }
      let link = try link(to: url, reconnectInterval: reconnectInterval)
      var firstSocket: LiveSocket?
      do {
        firstSocket = try link.connect(timeout: Self.startingTime)
      } catch  where reconnectInterval > .zero {
        print(
          "LiveInspection: \(error.localizedDescription); trying again every "
            + "\(reconnectInterval) in the background")
      }
      return LiveInspection(
        link: link, firstSocket: firstSocket, registry: registry, redacting: redacting,
        limits: limits, historyLimit: historyLimit, stateInterval: stateInterval)
    } catch {
      print("LiveInspection: \(error.localizedDescription); running without it")
      return nil
    }
  }

  /// How long ``fromEnvironment(registry:redacting:limits:historyLimit:stateInterval:reconnectInterval:)``
  /// waits for the inspector's answer before the app goes on and connects in the background:
  /// an inspector that answers streams the app's first actions too.
  static var startingTime: Interval { .milliseconds(500) }

  deinit {
    close()
  }

  /// Ends the connection, and stops connecting again; the store keeps running as it is.
  ///
  /// What is pending is sent if the inspector reads it within a second; then the connection
  /// ends whatever the inspector does (a suspended inspector, one that stopped reading), and what
  /// is still pending is dropped.
  ///
  /// - Complexity: Sending what is pending, for at most a second.
  public func close() {
    stream.close(waitingAtMost: Self.closingTime)
    // Ends a send the writer may be blocked in: it fails, and the writer stops.
    link.close()
  }

  /// How long ``close()`` waits for the inspector to take what is pending.
  static var closingTime: Interval { .seconds(1) }

  /// Waits until everything dispatched before the call was sent to the inspector, for at most
  /// `limit`: an inspector that stopped reading (suspended in a debugger, say) does not hold the
  /// app, at exit or anywhere else.
  ///
  /// - Parameter limit: The longest to wait; one second unless given.
  /// - Returns: Whether everything was sent within `limit`.
  /// - Complexity: The writer's work on what is pending, for at most `limit`.
  @discardableResult
  public func flush(waitingAtMost limit: Interval = .seconds(1)) -> Bool {
    stream.flush(waitingAtMost: limit)
  }

  /// Whether an inspector receives the app's actions now: `false` from when the connection
  /// ends until the app connects again (the app keeps its history meanwhile, and encodes
  /// nothing for the inspector).
  ///
  /// - Complexity: O(1): a lock.
  public var isConnected: Bool {
    link.isSending
  }

  /// Whether the page has moved the store back in time, so that new actions wait.
  /// - Complexity: O(1): an atomic load.
  public var isPaused: Bool {
    isPausedFlag.load(ordering: .acquiring)
  }
}
