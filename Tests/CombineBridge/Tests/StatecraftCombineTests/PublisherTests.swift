import Dispatch
import OpenCombine
import Statecraft
import StatecraftCombine
import Testing

struct Counter: Equatable, Sendable {
  var count = 0
  var label = ""
}

struct Increment: Action {}
struct Label: Action { let text: String }

func counterReducer(action: Action, state: Counter?) -> Counter {
  var state = state ?? Counter()
  switch action {
  case is Increment: state.count += 1
  case let action as Label: state.label = action.text
  default: break
  }
  return state
}

/// Set on the main queue only: "main" is the queue, which on Linux may run on a worker thread.
nonisolated let mainQueueKey: DispatchSpecificKey<UInt8> = {
  let key = DispatchSpecificKey<UInt8>()
  DispatchQueue.main.setSpecific(key: key, value: 1)
  return key
}()

/// `Store.publisher(for:)`, the file Apple platforms compile against Combine, here against
/// OpenCombine.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct PublisherTests {
  @Test func publishesTheCurrentValueThenEachChangeMadeOnTheMainActor() {
    let store = Store<Counter>(reducer: counterReducer, state: Counter())
    var received: [Int] = []
    let cancellable = store.publisher(for: \.count).sink { received.append($0) }
    store.dispatch(Increment())
    store.dispatch(Increment())
    #expect(received == [0, 1, 2])
    cancellable.cancel()
  }

  @Test func equalConsecutiveValuesAreRemoved() {
    let store = Store<Counter>(reducer: counterReducer, state: Counter())
    var received: [Int] = []
    let cancellable = store.publisher(for: \.count).sink { received.append($0) }
    store.dispatch(Label(text: "the count does not change"))
    store.dispatch(Increment())
    #expect(received == [0, 1])
    cancellable.cancel()
  }

  @Test func aChangeFromAnotherThreadIsPublishedOnTheMainQueue() async {
    let store = Store<Counter>(reducer: counterReducer, state: Counter())
    var received: [Int] = []
    var onMainQueue: [Bool] = []
    var arrived: CheckedContinuation<Void, Never>?
    let cancellable = store.publisher(for: \.count).sink { value in
      received.append(value)
      onMainQueue.append(DispatchQueue.getSpecific(key: mainQueueKey) != nil)
      if received.count == 2 { arrived?.resume() }
    }
    // Awaits the delivery itself (the suite's time limit bounds it), not a polling loop.
    await withCheckedContinuation { continuation in
      arrived = continuation
      Task.detached { store.dispatch(Increment()) }
    }
    #expect(received == [0, 1])
    #expect(!onMainQueue.contains(false))
    cancellable.cancel()
  }

  @Test func afterCancellingNothingMoreIsPublished() {
    let store = Store<Counter>(reducer: counterReducer, state: Counter())
    var received: [Int] = []
    let cancellable = store.publisher(for: \.count).sink { received.append($0) }
    cancellable.cancel()
    store.dispatch(Increment())
    #expect(received == [0])
  }

  @Test func theStoreIsReleasedWhileAPublisherIsSubscribed() {
    var store: Store<Counter>? = Store<Counter>(reducer: counterReducer, state: Counter())
    weak let released = store
    var received: [Int] = []
    let cancellable = store?.publisher(for: \.count).sink { received.append($0) }
    store = nil
    #expect(released == nil)
    #expect(received == [0])
    cancellable?.cancel()
  }
}
