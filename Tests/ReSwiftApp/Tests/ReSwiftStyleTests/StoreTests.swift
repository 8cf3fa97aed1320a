import Dispatch
import Statecraft
import StatecraftTesting
import XCTest

/// ReSwift-style tests: nonisolated XCTest methods that create, subscribe and read subscribers.
final class ReSwiftStyleStoreTests: XCTestCase {
  func testInitDispatchesTheInitActionAndStateIsReadLikeReSwifts() {
    let store = Store<AppState>(reducer: appReducer, state: nil)
    XCTAssertEqual(store.state.counter, 0)
    XCTAssertEqual(store.state?.counter, 0)
    guard let state = store.state else { return XCTFail("no state") }
    XCTAssertNil(state.name)
  }

  // ReSwift's StoreTests.testDeinit, as ReSwift wrote it: a subclass of `Store` hooks `deinit`.
  func testDeinit() {
    var deInitCount = 0

    autoreleasepool {
      let reducer = TestReducer()
      _ = DeInitStore(
        reducer: reducer.handleAction,
        state: TestAppState(),
        deInitAction: { deInitCount += 1 })
    }

    XCTAssertEqual(deInitCount, 1)
  }

  func testSubscriberGetsTheStateAtOnceAndEachChange() {
    let store = Store<AppState>(reducer: appReducer, state: AppState())
    let subscriber = TestSubscriber<Int>()
    store.subscribe(subscriber) { $0.select { $0.counter } }
    store.dispatch(IncreaseCounter())
    store.dispatch(SetName(name: "skipped"))
    store.dispatch(IncreaseCounter())
    XCTAssertEqual(subscriber.receivedStates, [0, 1, 2])
    store.unsubscribe(subscriber)
    store.dispatch(IncreaseCounter())
    XCTAssertEqual(subscriber.receivedStates, [0, 1, 2])
  }

  func testACustomOperatorBuiltFromASinkAndAnObserver() {
    let store = Store<AppState>(reducer: appReducer, state: AppState())
    let subscriber = TestSubscriber<AppState>()
    store.subscribe(subscriber) { $0.onlyIncreasing { $0.counter } }
    store.dispatch(IncreaseCounter())
    store.dispatch(SetName(name: "a new state, the same counter"))
    store.dispatch(IncreaseCounter())
    XCTAssertEqual(subscriber.receivedStates.map { $0.counter }, [0, 1, 2])
  }

  func testCodingRoundTripsThroughADictionary() {
    let snapshot = CounterSnapshot(counter: 3)
    XCTAssertEqual(CounterSnapshot(dictionary: snapshot.dictionaryRepresentation)?.counter, 3)
    XCTAssertNil(CounterSnapshot(dictionary: [:]))
  }

  func testWholeStateSubscriberAndNilTransform() {
    let store = Store<AppState>(reducer: appReducer, state: AppState())
    let whole = TestSubscriber<AppState>()
    let explicit = TestSubscriber<AppState>()
    store.subscribe(whole)
    store.subscribe(explicit, transform: nil)
    store.dispatch(IncreaseCounter())
    XCTAssertEqual(whole.receivedStates.map { $0.counter }, [0, 1])
    XCTAssertEqual(explicit.receivedStates.map { $0.counter }, [0, 1])
  }

  func testUnsubscribeThroughAnyStoreSubscriber() {
    let store = Store<AppState>(reducer: appReducer, state: AppState())
    let subscriber = TestSubscriber<Int>()
    store.subscribe(subscriber) { $0.select { $0.counter } }
    let erased: AnyStoreSubscriber = subscriber
    store.unsubscribe(erased)
    store.dispatch(IncreaseCounter())
    XCTAssertEqual(subscriber.receivedStates, [0])
  }

  func testC15SubscribingOffTheMainThreadRegistersAtOnceAndDeliversOnTheMainQueue() {
    let store = Store<AppState>(reducer: appReducer, state: AppState())
    let subscriber = TestSubscriber<Int>()
    let delivered = expectation(description: "first state on the main queue")
    var deliveredOnMain = [Bool]()
    subscriber.onNewState = { _ in
      deliveredOnMain.append(Thread.isMainThread)
      delivered.fulfill()
    }
    let subscribed = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      subscribeToCounter(subscriber, on: store)
      // Registered at once: this commit is not missed, and the first delivery is its state.
      store.dispatch(IncreaseCounter())
      subscribed.signal()
    }
    XCTAssertEqual(subscribed.wait(timeout: .now() + 5), .success)
    XCTAssertEqual(subscriber.receivedStates, [], "nothing is delivered off the main queue")
    wait(for: [delivered], timeout: 5)
    XCTAssertEqual(subscriber.receivedStates, [1])
    XCTAssertEqual(deliveredOnMain, [true])
    store.dispatch(IncreaseCounter())
    XCTAssertEqual(subscriber.receivedStates, [1, 2])
  }

  func testC15ASubscriptionMadeOffTheMainThreadAfterARoundIsInTheNextRound() {
    let store = Store<AppState>(reducer: appReducer, state: AppState())
    let first = TestSubscriber<Int>()
    subscribeToCounter(first, on: store)
    store.dispatch(IncreaseCounter())  // a round: the main loop now holds a copy of the registry
    let late = TestSubscriber<Int>()
    let delivered = expectation(description: "the late subscriber's first state")
    late.onNewState = { _ in delivered.fulfill() }
    let subscribed = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      subscribeToCounter(late, on: store)
      subscribed.signal()
    }
    XCTAssertEqual(subscribed.wait(timeout: .now() + 5), .success)
    wait(for: [delivered], timeout: 5)
    store.dispatch(IncreaseCounter())
    XCTAssertEqual(first.receivedStates, [0, 1, 2])
    XCTAssertEqual(late.receivedStates, [1, 2])
  }

  /// A subscriber that runs the main run loop inside `newState`, as a macOS app does when it
  /// shows a modal alert there: a round another thread scheduled meanwhile runs nested and is
  /// skipped (never nested, C6), and the rounds of later commits from other threads must still
  /// come (C7).
  func testC7RoundsStillComeAfterASubscriberRanTheRunLoopInsideNewState() {
    let store = Store<AppState>(reducer: appReducer, state: AppState())
    let subscriber = TestSubscriber<Int>()
    let sawThree = expectation(description: "the state of a later commit from another thread")
    subscriber.onNewState = { [unowned self] counter in
      if counter == 1 {
        // While "the alert is shown": another thread commits, and its round runs nested.
        let drained = self.expectation(description: "the nested run loop ran the main queue")
        DispatchQueue.global().async {
          store.dispatch(IncreaseCounter())
          DispatchQueue.main.async { drained.fulfill() }
        }
        self.wait(for: [drained], timeout: 5)
      }
      if counter == 3 { sawThree.fulfill() }
    }
    subscribeToCounter(subscriber, on: store)
    store.dispatch(IncreaseCounter())  // on the main thread, from no main-queue block: a button
    DispatchQueue.global().async { store.dispatch(IncreaseCounter()) }
    wait(for: [sawThree], timeout: 5)
    XCTAssertEqual(subscriber.receivedStates.last, 3)
    XCTAssertEqual(subscriber.receivedStates, subscriber.receivedStates.sorted())
  }

  func testC15UnsubscribingBeforeTheMainQueueRunsDeliversNothing() {
    let store = Store<AppState>(reducer: appReducer, state: AppState())
    let subscriber = TestSubscriber<Int>()
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      subscribeToCounter(subscriber, on: store)
      store.unsubscribe(subscriber)
      done.signal()
    }
    XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
    let drained = expectation(description: "the main queue ran the first delivery's turn")
    DispatchQueue.main.async { drained.fulfill() }
    wait(for: [drained], timeout: 5)
    store.dispatch(IncreaseCounter())
    XCTAssertEqual(subscriber.receivedStates, [])
  }

  func testStoreTypeGenericHelperAndDispatchingStoreTypeInjection() {
    let store = Store<AppState>(reducer: appReducer, state: AppState())
    CounterCoordinator(store: store).increase()
    XCTAssertEqual(counterText(of: store), "1 / nobody")

    let stub = StoreStub(state: AppState(counter: 7, name: "stub"))
    CounterCoordinator(store: stub).increase()
    XCTAssertEqual(stub.actions.count, 1)
    XCTAssertEqual(counterText(of: stub), "7 / stub")
  }

  func testActionCreatorAndDispatchFunction() {
    let store = Store<AppState>(reducer: appReducer, state: AppState())
    store.dispatch(renameIfEmpty("first"))
    store.dispatch(renameIfEmpty("second"))
    XCTAssertEqual(store.state.name, "first")
    let dispatch = store.dispatchFunction!
    dispatch(IncreaseCounter())
    XCTAssertEqual(store.state.counter, 1)
  }

  func testAsyncActionCreatorCallsBackWithTheNewState() {
    let store = Store<AppState>(reducer: appReducer, state: AppState())
    let calledBack = expectation(description: "callback")
    var received: AppState?
    store.dispatch(loadFilms(["A New Hope"])) { state in
      received = state
      calledBack.fulfill()
    }
    wait(for: [calledBack], timeout: 5)
    XCTAssertEqual(received?.films, ["A New Hope"])
    XCTAssertEqual(store.state.films, ["A New Hope"])
  }

  func testASetDispatchFunctionRunsInsteadOfTheChainAndReducesWithDefaultDispatch() {
    let store = Store<AppState>(reducer: appReducer, state: AppState())
    let seen = ActionLog()
    store.dispatchFunction = { action in
      seen.append(action)
      if action is IncreaseCounter { store.dispatch(SetName(name: "queued after")) }
      store._defaultDispatch(action: action)
    }
    let subscriber = TestSubscriber<Int>()
    store.subscribe(subscriber) { $0.select { $0.counter } }
    store.dispatch(IncreaseCounter())
    XCTAssertEqual(seen.actions, ["IncreaseCounter", "SetName"])
    XCTAssertEqual(store.state.counter, 1)
    XCTAssertEqual(store.state.name, "queued after")
    XCTAssertEqual(subscriber.receivedStates, [0, 1])
    store._defaultDispatch(action: IncreaseCounter())
    XCTAssertEqual(seen.actions.count, 2, "_defaultDispatch skips the dispatch function")
    XCTAssertEqual(subscriber.receivedStates, [0, 1, 2])
    store.dispatchFunction = nil
    store.dispatch(IncreaseCounter())
    XCTAssertEqual(seen.actions.count, 2, "nil puts the (empty) middleware chain back")
    XCTAssertEqual(store.state.counter, 3)
  }

  func testSettingMiddlewareRebuildsTheChain() {
    let store = Store<AppState>(reducer: appReducer, state: AppState())
    store.dispatch(IncreaseCounter())
    let log = ActionLog()
    store.middleware = [log.middleware()]
    XCTAssertEqual(store.middleware.count, 1)
    store.dispatch(SetName(name: "logged"))
    store.middleware = []
    store.dispatch(IncreaseCounter())
    XCTAssertEqual(log.actions, ["SetName"])
    XCTAssertEqual(store.state.counter, 2)
  }
}

// ReSwift's StoreTests.swift: used for the deinitialization test. The one edit: Swift asks every
// subclass of a `Sendable` class to restate `@unchecked Sendable`, in any language mode, with a
// warning that has no diagnostic group, so `-warnings-as-errors` cannot let it through.
class DeInitStore<State>: Store<State>, @unchecked Sendable {
  var deInitAction: (() -> Void)?

  deinit {
    deInitAction?()
  }

  required convenience init(
    reducer: @escaping Reducer<State>,
    state: State?,
    deInitAction: (() -> Void)?
  ) {
    self.init(
      reducer: reducer,
      state: state,
      middleware: [],
      automaticallySkipsRepeats: false)
    self.deInitAction = deInitAction
  }

  required init(
    reducer: @escaping Reducer<State>,
    state: State?,
    middleware: [Middleware<State>],
    automaticallySkipsRepeats: Bool
  ) {
    super.init(
      reducer: reducer,
      state: state,
      middleware: middleware,
      automaticallySkipsRepeats: automaticallySkipsRepeats)
  }
}

// ReSwift's TestFakes.swift: the state, action and reducer testDeinit uses.
struct TestAppState {
  var testValue: Int?

  init(testValue: Int? = nil) {
    self.testValue = testValue
  }
}

struct SetValueAction: Action {
  let value: Int?
  static let type = "SetValueAction"

  init(_ value: Int?) {
    self.value = value
  }
}

struct TestReducer {
  func handleAction(action: Action, state: TestAppState?) -> TestAppState {
    var state = state ?? TestAppState()

    switch action {
    case let action as SetValueAction:
      state.testValue = action.value
      return state
    default:
      return state
    }
  }
}
