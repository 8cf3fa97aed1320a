import Dispatch
import Statecraft
import StatecraftTestSupport
import Testing

/// Records, from inside the reducer, whether each reduction ran on the main queue.
private let reductionsOffMain = TestAtomic<Int>(0)

/// A reducer as a target with default main-actor isolation declares it: main-actor isolated.
@MainActor
private func mainActorReducer(action: Action, state: TestState?) -> TestState {
  if !MainQueueProbe.isCurrent { reductionsOffMain.add(1, ordering: .relaxed) }
  return testReducer(action: action, state: state)
}

/// Main-actor feature reducers, as a target with default main-actor isolation declares them.
@MainActor
private func countReducer(state: inout Int, action: Increment) {
  if !MainQueueProbe.isCurrent { reductionsOffMain.add(1, ordering: .relaxed) }
  state += 1
}

@MainActor
private func itemsReducer(action: Action, state: [Int]?) -> [Int] {
  var items = state ?? []
  if let action = action as? Tagged { items.append(action.thread * 1_000_000 + action.sequence) }
  return items
}

/// What `let appReducer = combineReducers(...)` is there: a main-actor global.
@MainActor
private let composedMainActorReducer = combineReducers(
  scopedReducer(\TestState.count, countReducer),
  scopedReducer(\TestState.items, inPlace(itemsReducer))
)

/// C17: a store with a main-actor reducer reduces only on the main queue, in order, losing
/// nothing, from any thread.
@Suite(.catchesHangs, .serialized) struct MainActorReducerTests {
  private func makeMainActorStore(
    state: TestState? = TestState(), middleware: [Middleware<TestState>] = []
  ) -> Store<TestState> {
    Store(reducer: mainActorReducer, state: state, middleware: middleware)
  }

  @MainActor
  @Test func c17ADispatchOnTheMainQueueReducesAtOnce() {
    let before = reductionsOffMain.load(ordering: .relaxed)
    let store = makeMainActorStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    store.dispatch(Increment())
    #expect(store.state.count == 1)
    #expect(recorder.values == [0, 1])
    #expect(reductionsOffMain.load(ordering: .relaxed) == before)
  }

  @Test func c17DispatchesFromFourThreadsAreAllReducedOnTheMainQueueInOrder() async {
    let before = reductionsOffMain.load(ordering: .relaxed)
    let store = makeMainActorStore()
    await runOnThreads(4) { thread in
      for sequence in 0..<1_000 { store.dispatch(Tagged(thread: thread, sequence: sequence)) }
    }
    await MainActor.run { store.dispatch(Increment()) }  // processes what is queued first
    let items = store.state.items
    #expect(items.count == 4_000)
    for thread in 0..<4 {
      let mine = items.filter { $0 / 1_000_000 == thread }.map { $0 % 1_000_000 }
      #expect(mine == Array(0..<1_000))
    }
    #expect(store.state.count == 1)
    #expect(reductionsOffMain.load(ordering: .relaxed) == before)
  }

  @MainActor
  @Test func c17ADispatchFromAnotherThreadIsReducedWhenTheMainQueueRuns() async {
    let store = makeMainActorStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    onAnotherThreadWhileHoldingTheMainQueue {
      store.dispatch(Increment())
      store.dispatch(Increment())
    }
    #expect(store.state.count == 0, "queued for the main queue, which this test holds")
    await waitUntil { recorder.values.last == 2 }
    #expect(store.state.count == 2)
    #expect(recorder.values == [0, 2], "one notification for what was queued")
  }

  @MainActor
  @Test func c17AMainQueueDispatchNeverOvertakesAnEarlierOne() {
    let store = makeMainActorStore()
    onAnotherThreadWhileHoldingTheMainQueue {
      store.dispatch(SetLabel(label: "first, from another thread"))
    }
    store.dispatch(SetLabel(label: "second, on the main queue"))
    #expect(store.state.label == "second, on the main queue")
  }

  @MainActor
  @Test func c17ABatchFromAnotherThreadIsReducedTogether() async {
    let store = makeMainActorStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    onAnotherThreadWhileHoldingTheMainQueue {
      store.batch {
        store.dispatch(Increment())
        store.dispatch(Add(amount: 2))
      }
    }
    await waitUntil { recorder.values.last == 3 }
    #expect(recorder.values == [0, 3])
  }

  @Test func c17MiddlewareThatCallsNextLaterStillReducesOnTheMainQueue() async {
    let before = reductionsOffMain.load(ordering: .relaxed)
    let later: Middleware<TestState> = { _, _ in
      { next in
        { action in
          DispatchQueue.global().async { next(action) }
        }
      }
    }
    let store = makeMainActorStore(middleware: [later])
    await MainActor.run { store.dispatch(Increment()) }
    #expect(await eventually { store.state.count == 1 })
    #expect(reductionsOffMain.load(ordering: .relaxed) == before)
  }

  @Test func c17AStoreCreatedOffTheMainQueueHasItsInitialStateWhenInitReturns() async {
    let before = reductionsOffMain.load(ordering: .relaxed)
    let count = await Task.detached {
      let store = Store<TestState>(reducer: mainActorReducer, state: nil)
      return store.state.count
    }.value
    #expect(count == 0)
    #expect(reductionsOffMain.load(ordering: .relaxed) == before)
  }

  @Test func c17AComposedMainActorReducerIsReducedOnTheMainQueueInOrder() async {
    let before = reductionsOffMain.load(ordering: .relaxed)
    // Created off the main queue, as a global `nonisolated let mainStore` may be: the reducer
    // and the state are main-actor expressions, evaluated there.
    let store = await Task.detached {
      Store(reducer: composedMainActorReducer, state: TestState())
    }.value
    await runOnThreads(4) { thread in
      for sequence in 0..<500 {
        store.dispatch(Tagged(thread: thread, sequence: sequence))
        store.dispatch(Increment())
      }
    }
    await MainActor.run { store.dispatch(Increment()) }  // processes what is queued first
    #expect(store.state.count == 2_001)
    for thread in 0..<4 {
      let mine = store.state.items.filter { $0 / 1_000_000 == thread }.map { $0 % 1_000_000 }
      #expect(mine == Array(0..<500))
    }
    #expect(reductionsOffMain.load(ordering: .relaxed) == before)
  }

  @MainActor
  @Test func aNonisolatedInPlaceReducerStillReducesOnTheDispatchingThread() {
    // The main-actor overloads must not capture closure literals or nonisolated reducers
    // written in main-actor code: those stores reduce wherever the dispatch happens.
    let literal = Store<TestState>(
      reducer: { state, action in if action is Increment { state.count += 1 } },
      state: TestState())
    let combined = Store(
      reducer: combineReducers(
        inPlace(testReducer), scopedReducer(\TestState.label, inPlace(labelReducer))),
      state: TestState())
    onAnotherThreadWhileHoldingTheMainQueue {
      literal.dispatch(Increment())
      combined.dispatch(Increment())
      combined.dispatch(SetLabel(label: "reduced off the main queue"))
    }
    #expect(literal.state.count == 1, "reduced before the held main queue ran")
    #expect(combined.state.count == 1)
    #expect(combined.state.label == "reduced off the main queue")
  }
}

/// A nonisolated feature reducer of ReSwift's shape.
private func labelReducer(action: Action, state: String?) -> String {
  (action as? SetLabel)?.label ?? state ?? ""
}
