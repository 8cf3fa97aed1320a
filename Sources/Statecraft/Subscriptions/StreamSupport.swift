import StatecraftPrimitives

/// Finishes a stream when the subscription that feeds it is released (the store is gone).
final class StreamFinisher<Element: Sendable>: Sendable {
  private let continuation: AsyncStream<Element>.Continuation

  init(_ continuation: AsyncStream<Element>.Continuation) {
    self.continuation = continuation
  }

  deinit {
    continuation.finish()
  }

  func yield(_ element: Element) {
    continuation.yield(element)
  }
}

/// Holds the token of a stream's subscription, made later on the main actor, so that the
/// stream's termination can cancel it whichever comes first.
final class TokenHolder: Sendable {
  private let state = Locked<(token: SubscriptionToken?, isCancelled: Bool)>((nil, false))

  func hold(_ token: SubscriptionToken) {
    let cancelled = state.withLock { state in
      state.token = token
      return state.isCancelled
    }
    if cancelled { token.cancel() }
  }

  func cancel() {
    let token = state.withLock { state in
      state.isCancelled = true
      return state.token
    }
    token?.cancel()
  }
}
