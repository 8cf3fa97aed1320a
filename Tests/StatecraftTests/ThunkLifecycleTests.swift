import Statecraft
import StatecraftTestSupport
import Testing

private struct LoadFailed: Error, Equatable {}

private let loadCount = AsyncThunk<TestState, Int>("count/load") { context in
  (context.state?.count ?? 0) + 1
}

private let loadOther = AsyncThunk<TestState, Int>("other/load") { _ in 0 }

/// Lifecycle actions are matched by the thunk and compared as values (issue 11).
@Suite(.catchesHangs) struct ThunkLifecycleTests {
  @Test func aReducerMatchesByTheThunkNotByAString() async throws {
    let store = Store<TestState>(
      reducer: { (state: inout TestState, action: any Action) in
        if let event = loadCount.lifecycle(of: action) {
          state.label = event.isPending ? "loading" : ""
          if let value = event.value { state.count = value }
        }
      }, state: TestState(count: 41))
    store.dispatch(loadOther)
    #expect(store.state.label == "", "another thunk's lifecycle does not match")
    let task = store.dispatch(loadCount)
    #expect(store.state.label == "loading")
    #expect(try await task.value == 42)
    #expect(store.state.count == 42)
    #expect(store.state.label == "")
  }

  @Test func phasesAreEquatableAndSayWhatTheyAre() {
    let pending = ThunkLifecycle<Int>(name: "n", requestID: 1, phase: .pending)
    let fulfilled = ThunkLifecycle<Int>(name: "n", requestID: 1, phase: .fulfilled(3))
    let rejected = ThunkLifecycle<Int>(name: "n", requestID: 1, phase: .rejected(LoadFailed()))
    let cancelled = ThunkLifecycle<Int>(name: "n", requestID: 1, phase: .cancelled)
    #expect(pending.phase == .pending)
    #expect(fulfilled == ThunkLifecycle(name: "n", requestID: 1, phase: .fulfilled(3)))
    #expect(fulfilled.phase != .fulfilled(4))
    #expect(rejected.phase == .rejected(LoadFailed()))
    #expect(pending.isPending && pending.phase == .pending)
    #expect(!fulfilled.isPending && fulfilled.value == 3 && fulfilled.error == nil)
    #expect(!rejected.isPending && rejected.error is LoadFailed && rejected.value == nil)
    #expect(cancelled.phase == .cancelled && !cancelled.isPending)
  }
}
