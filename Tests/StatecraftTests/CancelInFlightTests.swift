import Dispatch
import Statecraft
import StatecraftTestSupport
import Testing

/// Logs the lifecycle actions of `AsyncThunk<TestState, Int>` as "phase requestID".
private func lifecycleLogger(_ log: Log<String>) -> Middleware<TestState> {
  { _, _ in
    { next in
      { action in
        if let action = action as? ThunkLifecycle<Int> {
          let phase =
            switch action.phase {
            case .pending: "pending"
            case .fulfilled: "fulfilled"
            case .rejected: "rejected"
            case .cancelled: "cancelled"
            }
          log.append("\(phase) \(action.requestID)")
        }
        next(action)
      }
    }
  }
}

private func slowLoad() -> AsyncThunk<TestState, Int> {
  AsyncThunk("load", id: "load", policy: .cancelPrevious) { _ in
    try await Task.sleep(nanoseconds: 60_000_000_000)
    return 1
  }
}

/// Issue 11: a run superseded by a new one with the same id is announced cancelled before the
/// new one's pending, so a reducer that clears `isLoading` on `cancelled` never hides the new
/// run's spinner.
@Suite(.catchesHangs) struct CancelInFlightTests {
  @Test(arguments: [false, true])
  func theSupersededRunIsCancelledBeforeTheNewRunIsPending(fromAnotherThread: Bool) async {
    for _ in 0..<500 {
      let log = Log<String>()
      let store = makeStore(middleware: [lifecycleLogger(log)])
      let start: @Sendable () -> Void = {
        store.dispatch(slowLoad())
        store.dispatch(slowLoad())
        store.cancelThunks(id: "load")
      }
      if fromAnotherThread { await Task.detached(operation: start).value } else { start() }
      let phases = log.elements.map { $0.split(separator: " ")[0] }
      let runs = log.elements.map { $0.split(separator: " ")[1] }
      #expect(phases == ["pending", "cancelled", "pending", "cancelled"])
      #expect(runs[0] == runs[1] && runs[2] == runs[3] && runs[0] != runs[2])
    }
  }

  @Test func aCancelledRunIsAnnouncedOnceEvenWhenItsTaskEndsLater() async throws {
    let log = Log<String>()
    let store = makeStore(middleware: [lifecycleLogger(log)])
    let task = store.dispatch(slowLoad())
    store.cancelThunks(id: "load")
    #expect(await endsWithin(.patience) { _ = try? await task.value })
    #expect(log.elements.map { $0.split(separator: " ")[0] } == ["pending", "cancelled"])
  }

  @Test func theReducerPatternTheDocsRecommendKeepsTheNewRunsSpinner() async {
    let store = Store<TestState>(
      reducer: { (state: inout TestState, action: any Action) in
        guard let action = action as? ThunkLifecycle<Int> else { return }
        switch action.phase {
        case .pending: state.label = "loading"
        case .cancelled, .fulfilled, .rejected: state.label = ""
        }
      }, state: TestState())
    for _ in 0..<500 {
      await Task.detached {
        store.dispatch(slowLoad())
        store.dispatch(slowLoad())
      }.value
      #expect(store.state.label == "loading")
    }
    store.cancelThunks(id: "load")
    #expect(store.state.label == "")
  }
}
