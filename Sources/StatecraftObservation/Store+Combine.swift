// Compiled where Combine exists, and against OpenCombine by the package in Tests/CombineBridge,
// which tests it on Linux.
#if canImport(Combine)
  import Combine
#elseif canImport(OpenCombine)
  import OpenCombine
#endif

#if canImport(Combine) || canImport(OpenCombine)
  import Statecraft

  extension Store {
    /// A part of the state as a Combine publisher: the current value, then each change.
    ///
    /// Equal consecutive values are removed. Values are published on the main queue. The
    /// subscription to the store ends when the publisher's subscription is cancelled.
    ///
    /// ```swift
    /// mainStore.publisher(for: \.films)
    ///   .sink { films in render(films) }
    ///   .store(in: &cancellables)
    /// ```
    ///
    /// - Parameter keyPath: The part of the state to publish.
    /// - Returns: The publisher.
    @MainActor
    public func publisher<Value: Equatable>(for keyPath: KeyPath<State, Value>)
      -> AnyPublisher<Value, Never>
    {
      let subject = CurrentValueSubject<Value, Never>(state[keyPath: keyPath])
      let token = subscribe({ $0.select(keyPath) }, receive: { subject.send($0) })
      return
        subject
        .removeDuplicates()
        .handleEvents(receiveCancel: { token.cancel() })
        .eraseToAnyPublisher()
    }
  }
#endif
