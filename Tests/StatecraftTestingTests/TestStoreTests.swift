import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

@MainActor
@Suite(.catchesHangs) struct TestStoreTests {
  @Test func sendChecksTheExactChange() async {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    await store.send(Increment()) { $0.count = 1 }
    await store.send(SetLabel(label: "one")) { $0.label = "one" }
    await store.finish()
  }

  @Test func aWrongExpectationFailsWithADiff() async {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    await withKnownIssue {
      await store.send(Increment()) { $0.count = 2 }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("State after Increment")
        && text.contains("− ") && text.contains("count: 2")
        && text.contains("+ ") && text.contains("count: 1")
    }
  }

  @Test func anUnassertedChangeFails() async {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    await withKnownIssue {
      await store.send(Increment())
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("differs from the expected state")
    }
  }

  @Test func actionsFromThunksAreReceivedInOrder() async {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    await store.send(
      Thunk<CounterState> { context in
        context.dispatch(Increment())
        await Task.yield()
        context.dispatch(SetLabel(label: "done"))
      })
    await store.receive(Increment.self) { $0.count = 1 }
    await store.receive(SetLabel.self) { $0.label = "done" }
    await store.finish()
  }

  @Test func asyncThunkLifecycleIsReceived() async throws {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    let task = await store.send(
      AsyncThunk<CounterState, Int>("answer") { context in
        context.dispatch(Increment())
        return 42
      })
    await store.receive(ThunkLifecycle<Int>.self) { _ in }
    await store.receive(Increment.self) { $0.count = 1 }
    await store.receive(ThunkLifecycle<Int>.self)
    await store.finish()
    #expect(try await task.value == 42)
  }

  @Test func anActionNotReceivedFailsWhenExhaustive() async {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    await store.send(Thunk<CounterState> { context in context.dispatch(Increment()) })
    await withKnownIssue {
      await store.finish()
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("were dispatched but not received")
    }
  }

  @Test func receivingTheWrongActionFails() async {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    await store.send(Thunk<CounterState> { context in context.dispatch(Increment()) })
    await withKnownIssue {
      await store.receive(SetLabel.self)
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains(
        "Expected to receive SetLabel, but received Increment")
    }
    await store.finish()
  }

  @Test func nonExhaustiveChecksOnlyWhatIsAsserted() async {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    store.exhaustivity = .off
    await store.send(
      Thunk<CounterState> { context in
        context.dispatch(Increment())
        context.dispatch(Increment())
        context.dispatch(SetLabel(label: "two"))
      })
    await store.receive(SetLabel.self) { $0.label = "two" }
    #expect(store.state.count == 2)
    await store.finish()
  }

  @Test func thunksReadTheEnvironmentTheTestSets() async {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    store.thunkEnvironment[LabelKey.self] = "stubbed"
    await store.send(
      Thunk<CounterState> { context in
        context.dispatch(SetLabel(label: context.environment[LabelKey.self]))
      })
    await store.receive(SetLabel.self) { $0.label = "stubbed" }
    await store.finish()
  }
}

private enum LabelKey: ThunkEnvironmentKey {
  static let defaultValue = "real"
}
