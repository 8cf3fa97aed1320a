import StatecraftPrimitives

extension Store {
  /// The selected state, as an asynchronous sequence: the current value first, then each
  /// change.
  ///
  /// ```swift
  /// for await films in mainStore.states(\.films) {
  ///   render(films)
  /// }
  /// ```
  ///
  /// Values equal to the previous one are skipped. If the consumer is slower than the store,
  /// the latest value wins: values it has not taken yet are replaced by newer ones. The
  /// sequence ends when the consuming task is cancelled or the store is released; each
  /// iteration subscribes anew. Values come from a subscription on the main actor.
  ///
  /// - Parameter keyPath: The part of the state to follow.
  /// - Returns: The sequence of values.
  /// - Complexity: O(1); each iteration adds one subscription.
  public func states<Value: Equatable & Sendable>(
    _ keyPath: KeyPath<State, Value> & Sendable
  ) -> StoreStates<Value> {
    states { $0.select(keyPath) }
  }

  /// The states described by a subscription, as an asynchronous sequence.
  ///
  /// ```swift
  /// for await count in mainStore.states({ $0.select(\.count).only(when: { $1 > $0 }) }) { … }
  /// ```
  ///
  /// Buffering and ending are as for ``states(_:)-(KeyPath<State,Value>Sendable)``; repeats are
  /// skipped when the value is `Equatable` and the store skips repeats automatically.
  ///
  /// - Parameter transform: Builds the subscription from one of the whole state.
  /// - Returns: The sequence of values.
  /// - Complexity: O(1); each iteration adds one subscription.
  public func states<Value: Sendable>(
    _ transform: @escaping @MainActor @Sendable (Subscription<State>) -> Subscription<Value>
  ) -> StoreStates<Value> {
    subscriptionStream(bufferingPolicy: .bufferingNewest(1)) { store, finisher in
      store.subscribe(transform, receive: { finisher.yield($0) })
    }
  }

  /// A sequence that subscribes, on the main actor, each time iteration starts, and ends its
  /// subscription when iteration ends or the store is released: the one way the store's
  /// streams are made.
  func subscriptionStream<Value: Sendable>(
    bufferingPolicy: AsyncStream<Value>.Continuation.BufferingPolicy,
    subscribe: @escaping @MainActor @Sendable (Store, StreamFinisher<Value>) -> SubscriptionToken
  ) -> StoreStates<Value> {
    StoreStates { [weak self] in
      let (stream, continuation) = AsyncStream.makeStream(
        of: Value.self, bufferingPolicy: bufferingPolicy)
      guard let self else {
        continuation.finish()
        return stream
      }
      let holder = TokenHolder()
      continuation.onTermination = { _ in holder.cancel() }
      let finisher = StreamFinisher(continuation)
      MainQueue.onMainActor { [weak self] in
        guard let self else { return }
        holder.hold(subscribe(self, finisher))
      }
      return stream
    }
  }

  /// Every action the reducer receives, in the order it reduces them, as an asynchronous
  /// sequence: for listeners and logging.
  ///
  /// ```swift
  /// for await action in mainStore.actions() {
  ///   log(action)
  /// }
  /// ```
  ///
  /// No action is dropped: actions the consumer has not taken yet are buffered. The sequence
  /// starts with the first action reduced after iteration begins, and ends when the consuming
  /// task is cancelled or the store is released.
  ///
  /// - Returns: The sequence of actions.
  /// - Complexity: O(1); each iteration adds an observer that every reduction calls once.
  public func actions() -> StoreActions {
    return StoreActions { [weak engine = _engine.any] in
      let (stream, continuation) = AsyncStream.makeStream(
        of: (any Action).self, bufferingPolicy: .unbounded)
      guard let listeners = engine?.actionListeners else {
        continuation.finish()
        return stream
      }
      let finisher = StreamFinisher(continuation)
      let id = listeners.addObserver { finisher.yield($0) }
      continuation.onTermination = { [weak listeners] _ in listeners?.removeObserver(id) }
      return stream
    }
  }
}

/// The selected states of a store, or the events of a pulse, as an asynchronous sequence; see
/// ``Store/states(_:)-(KeyPath<State,Value>Sendable)`` and ``Store/pulses(_:)``.
public struct StoreStates<Value: Sendable>: AsyncSequence, Sendable {
  let makeStream: @Sendable () -> AsyncStream<Value>

  /// Starts a subscription and returns its iterator.
  /// - Complexity: O(1); subscribes on the main actor.
  public func makeAsyncIterator() -> AsyncStream<Value>.Iterator {
    makeStream().makeAsyncIterator()
  }
}

/// The actions a store reduces, as an asynchronous sequence; see ``Store/actions()``.
public struct StoreActions: AsyncSequence, Sendable {
  let makeStream: @Sendable () -> AsyncStream<any Action>

  /// Starts observing and returns the iterator.
  /// - Complexity: O(1); adds one observer.
  public func makeAsyncIterator() -> AsyncStream<any Action>.Iterator {
    makeStream().makeAsyncIterator()
  }
}
