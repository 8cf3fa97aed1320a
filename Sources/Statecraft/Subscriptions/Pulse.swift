import StatecraftPrimitives

// Inlinable, so that the steps are compiled for the app's types (Benchmarks/README.md, "Why
// the engine is inlinable").

/// A one-shot event kept in the state, such as an alert to show: ReactorKit's `@Pulse`.
///
/// Emitting the same value twice is two events: an alert with the same text is shown twice,
/// once per emit. Subscribers read events with ``Subscription/pulses(_:)`` or
/// ``Store/pulses(_:)``, which deliver each event once to each subscriber.
///
/// ```swift
/// struct AppState: Equatable {
///   var alert = Pulse<String>()
/// }
/// // in the reducer:
/// state.alert.emit("Saved")
/// // in a view:
/// mainStore.subscribe(self) { $0.pulses(\.alert) }
/// func newState(state event: PulseEvent<String>) { showAlert(event.value) }
/// ```
///
/// What each reader sees:
/// - a subscriber or an `AsyncSequence` sees every event emitted while it is subscribed,
///   exactly once, in order, even when several are emitted between two notifications (a
///   batch) or the consumer is slow;
/// - a subscriber that subscribes later, or again (a view that comes back on screen), does not
///   see the events emitted before: they are not repeated;
/// - a view that is subscribed but not on screen still receives them: subscribe for as long as
///   events must not be lost.
///
/// The state keeps the last 32 events, enough for the events emitted between two
/// notifications; older ones are dropped from the state after they were delivered.
public struct Pulse<Value: Sendable>: Sendable, Equatable {
  /// How many recent events the state keeps; for the recorder, which keeps no more.
  package static var capacity: Int { 32 }

  /// The events still kept, oldest first; read by subscriptions and the inspector.
  @usableFromInline package private(set) var events: [PulseEvent<Value>] = []
  /// The identifier of the latest event; 0 before the first.
  @usableFromInline package private(set) var latestID: UInt64 = 0

  /// Creates a pulse with no event.
  /// - Complexity: O(1).
  public init() {}

  /// The value of the latest event, if any.
  /// - Complexity: O(1).
  public var latest: Value? {
    events.last?.value
  }

  /// Emits an event carrying `value`.
  ///
  /// - Parameter value: The event's value.
  /// - Complexity: O(1): at most 32 events are kept.
  public mutating func emit(_ value: Value) {
    latestID &+= 1
    events.append(PulseEvent(id: latestID, value: value))
    if events.count > Self.capacity { events.removeFirst(events.count - Self.capacity) }
  }

  /// Two pulses are equal when they have seen the same events: a new event is a change even
  /// when its value equals the previous one.
  /// - Complexity: O(1): compares the events' numbers.
  public static func == (lhs: Pulse, rhs: Pulse) -> Bool {
    lhs.latestID == rhs.latestID
  }
}

/// One event of a ``Pulse``: its value and its place in the pulse's sequence.
public struct PulseEvent<Value: Sendable>: Sendable, Equatable {
  /// The event's number in its pulse; increases by one per event.
  @usableFromInline package let id: UInt64
  /// The event's value.
  /// - Complexity: O(1).
  public let value: Value

  /// Events are equal when they are the same event.
  /// - Complexity: O(1).
  public static func == (lhs: PulseEvent, rhs: PulseEvent) -> Bool {
    lhs.id == rhs.id
  }
}

extension Subscription {
  /// Delivers each event of a ``Pulse`` once, in order, from the time of subscribing.
  ///
  /// - Parameter keyPath: The pulse in the state.
  /// - Returns: A subscription that delivers events, not states; nothing on subscribing.
  /// - Complexity: O(1) to build; for each delivered state, O(e) for the e events emitted since
  ///   the last one.
  @inlinable public func pulses<Value>(_ keyPath: KeyPath<State, Pulse<Value>>)
    -> Subscription<PulseEvent<Value>>
  {
    Subscription<PulseEvent<Value>> { downstream in
      let lastSeen = PreviousValue<UInt64>.make()
      self._attach { state in
        let pulse = state[keyPath: keyPath]
        guard let seen = lastSeen.exchange(pulse.latestID) else { return }  // subscribing
        for event in pulse.events where event.id > seen {
          downstream(event)
        }
      }
    }
  }
}

extension Store {
  /// The events of a ``Pulse`` as an asynchronous sequence: each event once, in order; none is
  /// dropped, however slow the consumer.
  ///
  /// Like ``states(_:)``, the sequence subscribes when iteration
  /// starts, on the main actor (at once when iteration starts there), and has every event
  /// emitted from then on; each iteration subscribes anew. It ends when the iterating task is
  /// cancelled or the store is released.
  ///
  /// ```swift
  /// for await message in mainStore.pulses(\.alert) { showAlert(message) }
  /// ```
  ///
  /// - Parameter keyPath: The pulse in the state.
  /// - Returns: The sequence of event values.
  /// - Complexity: O(1); each iteration adds one subscription.
  public func pulses<Value: Sendable>(_ keyPath: KeyPath<State, Pulse<Value>> & Sendable)
    -> StoreStream<Value>
  {
    subscriptionStream(bufferingPolicy: .unbounded) { store, finisher in
      store.subscribe({ $0.pulses(keyPath) }, receive: { finisher.yield($0.value) })
    }
  }
}
