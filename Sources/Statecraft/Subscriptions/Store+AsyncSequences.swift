import StatecraftPrimitives

extension Store {
  /// The states described by a subscription, as an asynchronous sequence: the current value
  /// first, then each change.
  ///
  /// ```swift
  /// for await films in mainStore.states({ $0.select(\.films) }) {
  ///   render(films)
  /// }
  /// for await count in mainStore.states({ $0.select(\.count).only(when: { $1 > $0 }) }) { … }
  /// ```
  ///
  /// Repeats are skipped as for ``subscribe(_:transform:)``: values equal to the previous one
  /// when the value is `Equatable` and the store skips repeats automatically. If the consumer is
  /// slower than the store, the latest value wins: values it has not taken yet are replaced by
  /// newer ones. The sequence ends when the consuming task is cancelled or the store is
  /// released; each iteration subscribes anew. Values come from a subscription on the main
  /// actor.
  ///
  /// - Parameter transform: Builds the subscription from one of the whole state.
  /// - Returns: The sequence of values.
  /// - Complexity: O(1); each iteration adds one subscription.
  public func states<Value: Sendable>(
    _ transform: @escaping @MainActor @Sendable (Subscription<State>) -> Subscription<Value>
  ) -> StoreStream<Value> {
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
  ) -> StoreStream<Value> {
    StoreStream { [weak self] in
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
  /// sequence: for observers and logging.
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
  public func actions() -> StoreStream<any Action> {
    return StoreStream { [weak engine = _engine.any] in
      let (stream, continuation) = AsyncStream.makeStream(
        of: (any Action).self, bufferingPolicy: .unbounded)
      guard let observers = engine?.commitObservers else {
        continuation.finish()
        return stream
      }
      let finisher = StreamFinisher(continuation)
      let id = observers.addObserver { finisher.yield($0) }
      continuation.onTermination = { [weak observers] _ in observers?.removeObserver(id) }
      return stream
    }
  }
}

/// What a store sends over time, as an asynchronous sequence: the selected states
/// (``Store/states(_:)``), the events of a pulse (``Store/pulses(_:)``) or the reduced actions
/// (``Store/actions()``).
///
/// It starts observing the store each time iteration starts, and stops when iteration ends or
/// the store is released.
public struct StoreStream<Element: Sendable>: AsyncSequence, Sendable {
  let makeStream: @Sendable () -> AsyncStream<Element>

  /// Starts observing the store and returns the iterator.
  /// - Complexity: O(1); subscribes on the main actor, or adds one action observer.
  public func makeAsyncIterator() -> AsyncStream<Element>.Iterator {
    makeStream().makeAsyncIterator()
  }
}
