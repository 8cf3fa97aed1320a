import Dispatch
import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

/// The ReSwift API in Swift 6 code; `Tests/ReSwiftApp` has the Swift 5 side.
@Suite(.catchesHangs) struct ReSwiftCompatibilityTests {
  private func describe<S: StoreType<TestState>>(_ store: S) -> String {
    guard let state = store.state else { return "none" }
    return "\(state.count) \(store.state?.label ?? "")"
  }

  @MainActor
  @Test func theConcreteStateIsNotOptionalAndStoreTypeGetsReSwiftsOptionalOne() {
    let store = makeStore()
    store.dispatch(SetLabel(label: "a"))
    let state = store.state  // the store's own, non-optional `state`
    #expect(state.label == "a")
    #expect(store.state?.label == "a")
    #expect(describe(store) == "0 a")
    #expect(describe(StoreStub(state: TestState(count: 3))) == "3 ")
  }

  @Test func dispatchFunctionGoesThroughTheMiddlewareAndOutlivesNothing() {
    let log = Log<String>()
    var store: Store<TestState>? = makeStore(middleware: [typeLogger(log)])
    let dispatch = store!.dispatchFunction!
    dispatch(Increment())
    #expect(store?.state.count == 1)
    #expect(log.elements == ["Increment"])
    store = nil
    dispatch(Increment())  // the store is gone: nothing happens
    #expect(log.elements == ["Increment"])
  }

  @Test func aThunkErasedInAStoreWithTheMiddlewareIsStillCancellableById() async {
    let store = makeStore(middleware: [createThunkMiddleware()])
    let gate = AsyncGate()
    let finished = AsyncGate()
    let thunk = Thunk<TestState>(id: "load") { context in
      await gate.wait()
      context.dispatch(Increment())  // dropped: the thunk was cancelled
      context.dispatch(SetLabel(label: context.isCancelled ? "cancelled" : "running"))
      finished.open()
    }
    store.dispatch(thunk as any Action)
    store.cancelThunks(id: "load")
    gate.open()
    #expect(await endsWithin(.patience) { await finished.wait() })
    #expect(store.state == TestState())
  }

  @Test func outsideAStoreASynchronousThunksRunHasEndedWhenTheMiddlewareReturns() {
    let ran = Log<Int>()
    let middleware: Middleware<TestState> = createThunkMiddleware()
    let chain = middleware({ _ in }, { TestState() })({ _ in })
    for index in 0..<20 {
      chain(Thunk<TestState>(id: "load", policy: .dropWhileRunning) { _, _ in ran.append(index) })
    }
    // As in ReSwift-Thunk, each one runs: a run still open when the next arrives would drop it.
    #expect(ran.elements == Array(0..<20))
  }

  @Test func outsideAStoreTheMiddlewareRunsAnAsyncThunkWithTheHandedFunctions() async {
    let log = Log<String>()
    let middleware: Middleware<TestState> = createThunkMiddleware()
    let dispatch: DispatchFunction = { log.append("\(type(of: $0))") }
    let next: DispatchFunction = { _ in log.append("next") }
    let chain = middleware(dispatch, { TestState(count: 41) })(next)
    let done = AsyncGate()
    chain(
      Thunk<TestState> { context in
        context.dispatch(Add(amount: (context.state?.count ?? 0) + 1))
        done.open()
      })
    #expect(await endsWithin(.patience) { await done.wait() })
    #expect(log.elements == ["Add"])
  }

  @Test func outsideAStoreAnAsyncThunksLifecycleGoesToTheHandedDispatch() async {
    let log = Log<String>()
    let fulfilled = AsyncGate()
    let middleware: Middleware<TestState> = createThunkMiddleware()
    let dispatch: DispatchFunction = { action in
      log.append("\(action)")
      if "\(action)".contains("fulfilled") { fulfilled.open() }
    }
    let chain = middleware(dispatch, { TestState() })({ _ in })
    chain(AsyncThunk<TestState, Int>("answer") { _ in 42 })
    #expect(await endsWithin(.patience) { await fulfilled.wait() })
    let phases = log.elements.map { $0.contains("pending") ? "pending" : "fulfilled" }
    #expect(phases == ["pending", "fulfilled"])
  }

  @Test func aThunkOfAnotherStateGoesToNextWithAWarningAndTheReducerIgnoresIt() {
    struct Other: Sendable {}
    let warnings = Log<String>()
    let store = makeStore(middleware: [createThunkMiddleware()])
    let collect: @Sendable (String) -> Void = { warnings.append($0) }
    StatecraftDiagnostics.$warningHandler.withValue(collect) {
      store.dispatch(Thunk<Other> { _, _ in } as any Action)
    }
    store.dispatch(Increment())
    #expect(store.state.count == 1)
    #if DEBUG
      #expect(warnings.elements.count == 1)
      #expect(warnings.elements.first?.contains("Thunk<Other>") == true)
    #endif
  }
}

/// Opens once; every waiter, earlier or later, then continues.
private final class AsyncGate: Sendable {
  private let state = Guarded<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, []))

  func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  func wait() async {
    await withCheckedContinuation { continuation in
      let resumeNow = state.withLock { state in
        if !state.isOpen { state.waiters.append(continuation) }
        return state.isOpen
      }
      if resumeNow { continuation.resume() }
    }
  }
}
