import Statecraft
import StatecraftTestSupport
import Testing

@Suite(.catchesHangs) struct ThunkTests {
  @Test func reSwiftShapedThunkRunsBeforeDispatchReturns() {
    let store = makeStore()
    let thunk = Thunk<TestState> { dispatch, getState in
      dispatch(Add(amount: (getState()?.count ?? 0) + 5))
    }
    store.dispatch(thunk)
    #expect(store.state.count == 5)
  }

  @Test func asyncThunkIsDoneWithEverythingItDispatchedWhenAwaited() async throws {
    let store = makeStore()
    let thunk = Thunk<TestState> { context in
      for _ in 0..<3 {
        await Task.yield()
        context.dispatch(Increment())
      }
    }
    try await store.dispatch(thunk).value
    #expect(store.state.count == 3)
  }

  @Test func asyncThunkReadsTheStateAndDispatchesThroughItsContext() async throws {
    // What ReSwift-Thunk code that starts to `await` becomes: `dispatch` and `getState` are the
    // context's `dispatch` and `state`.
    let store = makeStore()
    let thunk = Thunk<TestState> { context in
      await Task.yield()
      if context.state?.count == 0 { context.dispatch(Increment()) }
    }
    try await store.dispatch(thunk).value
    #expect(store.state.count == 1)
  }

  @MainActor
  @Test func asyncBodiesRunOffTheMainActorUnlessTheySayOtherwise() async throws {
    let store = makeStore()
    let onMain = Log<Bool>()
    try await store.dispatch(Thunk<TestState> { _ in onMain.append(MainQueueProbe.isCurrent) })
      .value
    try await store.dispatch(
      Thunk<TestState> { @MainActor _ in onMain.append(MainQueueProbe.isCurrent) }
    ).value
    #expect(onMain.elements == [false, true])
  }

  @Test func aThunkDispatchedOffTheMainQueueStartsBeforeDispatchReturns() async throws {
    let store = makeStore()
    // The thunk suspends until the test has read the state, so that its second dispatch cannot
    // run first on another thread of the pool, however busy the machine is.
    let (gate, open) = AsyncStream.makeStream(of: Void.self)
    let thunk = Thunk<TestState> { context in
      context.dispatch(Increment())
      for await _ in gate { break }
      context.dispatch(Increment())
    }
    let (countOnReturn, task) = await Task.detached {
      let task = store.dispatch(thunk)
      return (store.state.count, task)
    }.value
    open.finish()
    if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
      // Started on the dispatching thread: the dispatch before its first suspension is reduced.
      #expect(countOnReturn == 1)
    }
    try await task.value
    #expect(store.state.count == 2)
  }

  @Test func childThunksAreAwaitedWithTheirParent() async throws {
    let store = makeStore()
    let child = Thunk<TestState> { context in
      let (gate, open) = AsyncStream.makeStream(of: Void.self)
      Task {
        await Task.yield()
        open.yield()
      }
      for await _ in gate { break }
      context.dispatch(SetLabel(label: "child done"))
    }
    let parent = Thunk<TestState> { context in
      context.dispatch(child)
      context.dispatch(Increment())
    }
    try await store.dispatch(parent).value
    #expect(store.state.label == "child done")
    #expect(store.state.count == 1)
  }

  @Test func typedResultAndLifecycleActions() async throws {
    let phases = Log<String>()
    let store = Store<TestState>(
      reducer: { action, state in
        if let action = action as? ThunkLifecycle<Int>, action.name == "answer" {
          switch action.phase {
          case .pending: phases.append("pending")
          case .fulfilled(let value): phases.append("fulfilled \(value)")
          case .rejected: phases.append("rejected")
          case .cancelled: phases.append("cancelled")
          }
        }
        return testReducer(action: action, state: state)
      },
      state: TestState()
    )
    let answer = AsyncThunk<TestState, Int>("answer") { context in
      context.dispatch(Increment())
      return 42
    }
    let task = store.dispatch(answer)
    #expect(phases.elements == ["pending"])  // pending is dispatched before dispatch returns
    let value = try await task.value
    #expect(value == 42)
    #expect(phases.elements == ["pending", "fulfilled 42"])
    #expect(store.state.count == 1)
  }

  @Test func thrownErrorBecomesTheRejectedActionAndReachesTheHandler() async {
    struct Offline: Error {}
    let rejected = Log<String>()
    let handled = Log<String>()
    let store = Store<TestState>(
      reducer: { action, state in
        if let action = action as? ThunkLifecycle<Int>, case .rejected(let error) = action.phase {
          rejected.append("\(error is Offline)")
        }
        return testReducer(action: action, state: state)
      },
      state: TestState()
    )
    store.thunkErrorHandler = { error in handled.append(String(describing: type(of: error))) }
    let failing = AsyncThunk<TestState, Int>("failing") { _ in throw Offline() }
    await #expect(throws: Offline.self) {
      try await store.dispatch(failing).value
    }
    #expect(rejected.elements == ["true"])
    #expect(handled.elements == ["Offline"])
  }

  @Test func errorFromAPlainThunkGoesToTheHandlerAndTheTask() async {
    struct Broken: Error {}
    let handled = Log<String>()
    let store = makeStore()
    store.thunkErrorHandler = { _ in handled.append("handled") }
    await #expect(throws: Broken.self) {
      try await store.dispatch(Thunk<TestState> { _ in throw Broken() }).value
    }
    #expect(handled.elements == ["handled"])
  }

  /// Without a handler, a thrown error is not lost silently: the store reports it, with the
  /// error and the fix.
  @Test func errorWithoutAHandlerIsReportedWithTheFix() async {
    let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
      limitThisChildProcess()
      struct Broken: Error {}
      let store = Store<Int>(reducer: { _, state in state ?? 0 }, state: 0)
      _ = try? await store.dispatch(Thunk<Int> { _ in throw Broken() }).value
    }
    let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
    #expect(output.contains("a thunk threw Broken()"), "\(output)")
    #expect(output.contains("Set Store.thunkErrorHandler"), "\(output)")
  }

  @Test func cancelledThunkDispatchesNothingAfterwards() async {
    let store = makeStore()
    let (gate, open) = AsyncStream.makeStream(of: Void.self)
    let thunk = Thunk<TestState> { context in
      context.dispatch(Increment())
      for await _ in gate { break }
      context.dispatch(Add(amount: 100))
    }
    let task = store.dispatch(thunk)
    #expect(await eventually { store.state.count > 0 })
    task.cancel()
    open.yield()
    _ = try? await task.value
    #expect(task.cancellationReason != nil)
    #expect(store.state.count == 1)
  }

  @Test func cancellingAnAsyncThunkDispatchesItsCancelledLifecycle() async {
    let phases = Log<String>()
    let store = Store<TestState>(
      reducer: { action, state in
        if let action = action as? ThunkLifecycle<Int>, case .cancelled = action.phase {
          phases.append("cancelled")
        }
        return testReducer(action: action, state: state)
      },
      state: TestState()
    )
    let slow = AsyncThunk<TestState, Int>("slow") { _ in
      try await Task.sleep(nanoseconds: 60_000_000_000)
      return 1
    }
    let task = store.dispatch(slow)
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(phases.elements == ["cancelled"])
  }

  @Test func newSearchCancelsTheOneInFlight() async throws {
    // ReactorKit's GitHub search: typing again cancels the request still running.
    let store = makeStore()
    let (firstGate, openFirst) = AsyncStream.makeStream(of: Void.self)
    func search(_ query: String, gate: AsyncStream<Void>?) -> Thunk<TestState> {
      Thunk(id: "search", policy: .cancelPrevious) { context in
        if let gate { for await _ in gate { break } }
        context.dispatch(SetLabel(label: query))
      }
    }
    let first = store.dispatch(search("star", gate: firstGate))
    let second = store.dispatch(search("star wars", gate: nil))
    try await second.value
    #expect(first.cancellationReason != nil)
    openFirst.yield()
    _ = try? await first.value
    #expect(store.state.label == "star wars")
  }

  @Test func cancelThunksByID() async {
    let store = makeStore()
    let (gate, open) = AsyncStream.makeStream(of: Void.self)
    let task = store.dispatch(
      Thunk<TestState>(id: ThunkID(7)) { context in
        for await _ in gate { break }
        context.dispatch(Increment())
      })
    store.cancelThunks(id: ThunkID(7))
    open.yield()
    _ = try? await task.value
    #expect(task.cancellationReason != nil)
    #expect(store.state.count == 0)
  }

  @Test func anInterpolatedLiteralIdentifiesAThunkAsTheStringItSpells() async {
    let store = makeStore()
    let (gate, open) = AsyncStream.makeStream(of: Void.self)
    let episode = 3
    let task = store.dispatch(
      Thunk<TestState>(id: "download/\(episode)") { context in
        for await _ in gate { break }
        context.dispatch(Increment())
      })
    #expect(ThunkID("download/\(episode)") == "download/3")
    #expect(ThunkID("download/\(episode + 1)") != "download/3")
    store.cancelThunks(id: "download/3")
    open.yield()
    _ = try? await task.value
    #expect(task.cancellationReason != nil)
    #expect(store.state.count == 0)
  }

  @Test func releasingTheStoreCancelsItsThunks() async {
    let started = Log<String>()
    let (gate, open) = AsyncStream.makeStream(of: Void.self)
    weak var weakStore: Store<TestState>?
    var task: ThunkTask<Void>?
    do {
      let store = makeStore()
      weakStore = store
      task = store.dispatch(
        Thunk<TestState> { context in
          started.append("started")
          for await _ in gate { break }
          context.dispatch(Increment())
        })
      #expect(await eventually { !started.elements.isEmpty })
    }
    #expect(weakStore == nil)  // a running thunk does not keep its store alive
    open.yield()
    _ = try? await task?.value
    #expect(task?.cancellationReason != nil)
  }

  @Test func thunkDispatchesKeepTheirOrderAmongOthers() async throws {
    let store = makeStore()
    let thunk = Thunk<TestState> { context in
      for sequence in 0..<500 { context.dispatch(Tagged(thread: 1, sequence: sequence)) }
    }
    let task = store.dispatch(thunk)
    for sequence in 0..<500 { store.dispatch(Tagged(thread: 2, sequence: sequence)) }
    try await task.value
    let items = store.state.items
    #expect(items.filter { $0 / 1_000_000 == 1 }.map { $0 % 1_000_000 } == Array(0..<500))
    #expect(items.filter { $0 / 1_000_000 == 2 }.map { $0 % 1_000_000 } == Array(0..<500))
  }

  @Test func environmentIsReplacedInTests() async throws {
    let store = makeStore()
    store.thunkEnvironment[GreetingKey.self] = "stub"
    let greet = AsyncThunk<TestState, String>("greet") { context in
      context.environment[GreetingKey.self]
    }
    #expect(try await store.dispatch(greet).value == "stub")
    #expect(ThunkEnvironment()[GreetingKey.self] == "hello")
  }

  @Test func thunkMiddlewareRunsThunksDispatchedAsPlainActions() async throws {
    let store = makeStore(middleware: [createThunkMiddleware()])
    let erased: any Action = Thunk<TestState> { dispatch, _ in dispatch(Increment()) }
    store.dispatch(erased)
    #expect(store.state.count == 1)
  }

  @Test func middlewareDispatchStartsThunks() {
    let thunk = Thunk<TestState> { dispatch, _ in dispatch(SetLabel(label: "from thunk")) }
    let starter: Middleware<TestState> = { dispatch, _ in
      { next in
        { action in
          next(action)
          if action is Increment { dispatch(thunk) }
        }
      }
    }
    let store = makeStore(middleware: [starter])
    store.dispatch(Increment())
    #expect(store.state.label == "from thunk")
  }

  /// A thunk dispatched as `any Action` runs as one dispatched with its own type, without the
  /// thunk middleware: never handed to the reducer, where a release build used to drop it.
  @Test func aThunkDispatchedAsAnyActionRunsWithoutTheMiddleware() async throws {
    let store = makeStore()
    let erased: [any Action] = [
      Thunk<TestState> { dispatch, _ in dispatch(Add(amount: 2)) },
      Increment(),
      AsyncThunk<TestState, Int>("answer") { context in
        context.dispatch(SetLabel(label: "answered"))
        return 40
      },
    ]
    for action in erased { store.dispatch(action) }
    #expect(store.state.count == 3, "the synchronous thunk ran inside dispatch, in order")
    #expect(await eventually { store.state.label == "answered" }, "the AsyncThunk ran")
  }

  /// With middleware, an erased thunk is started before the chain, as one with its own type:
  /// once, and the middleware sees the actions it dispatches, not the thunk.
  @Test func aThunkDispatchedAsAnyActionRunsOnceBeforeTheMiddleware() {
    let seen = Log<String>()
    let logging: Middleware<TestState> = { _, _ in
      { next in
        { action in
          seen.append(String(describing: type(of: action)))
          next(action)
        }
      }
    }
    let store = makeStore(middleware: [logging])
    let runs = Log<Int>()
    let erased: any Action = Thunk<TestState> { dispatch, _ in
      runs.append(1)
      dispatch(Increment())
    }
    store.dispatch(erased)
    #expect(runs.elements == [1])
    #expect(seen.elements == ["Increment"])
    #expect(store.state.count == 1)
  }

  /// What can still take a thunk to the reducer: a middleware passing it to `next`. Debug builds
  /// stop there, naming the way out.
  @Test func aMiddlewarePassingAThunkToNextStopsInDebugBuilds() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      struct Tick: Action {}
      let thunk = Thunk<Int> { _, _ in }
      let passesAThunk: Middleware<Int> = { _, _ in { next in { _ in next(thunk) } } }
      let store = Store<Int>(
        reducer: { _, state in state ?? 0 }, state: 0, middleware: [passesAThunk])
      store.dispatch(Tick())
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("reached the reducer"))
    #expect(message.contains("a middleware passed it to `next`"))
  }

}

private enum GreetingKey: ThunkEnvironmentKey {
  static let defaultValue = "hello"
}
