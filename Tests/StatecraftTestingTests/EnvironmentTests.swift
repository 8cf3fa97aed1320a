import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

private enum LiveOnlyKey: ThunkEnvironmentKey {
  static let defaultValue = "live"
}

private enum StubbedKey: ThunkEnvironmentKey {
  static let defaultValue = "live"
  static let testValue: String? = "test"
  static let previewValue: String? = "preview"
}

private func readInto<Key: ThunkEnvironmentKey>(_ key: Key.Type) -> Thunk<CounterState>
where Key.Value == String {
  Thunk { context in context.dispatch(SetLabel(label: context.environment[key])) }
}

/// Issue 11: in a test, a key the test did not set gives its test value, or fails the test with
/// the key's name; previews get preview values.
@MainActor
@Suite(.catchesHangs) struct EnvironmentTests {
  @Test func aKeyWithATestValueGivesItInATestStore() async {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    await store.send(readInto(StubbedKey.self))
    await store.receive(SetLabel.self) { $0.label = "test" }
    await store.finish()
  }

  @Test func aKeyTheTestDidNotSetFailsTheTestWithItsName() async {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    await withKnownIssue {
      await store.send(readInto(LiveOnlyKey.self))
      await store.receive(SetLabel.self) { $0.label = "live" }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("LiveOnlyKey") && text.contains("testValue")
    }
    await store.finish()
  }

  @Test func aKeyTheTestSetIsUsedWithoutAFailure() async {
    let store = TestStore(initialState: CounterState(), reducer: counterReducer)
    store.thunkEnvironment[LiveOnlyKey.self] = "stub"
    await store.send(readInto(LiveOnlyKey.self))
    await store.receive(SetLabel.self) { $0.label = "stub" }
    await store.finish()
  }

  @Test func expectThunkFailsOnAnUnsetKeyToo() async {
    await withKnownIssue {
      await ExpectThunk(readInto(LiveOnlyKey.self))
        .getsState(CounterState())
        .dispatches(SetLabel.self)
        .run()
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("LiveOnlyKey")
    }
  }

  @Test func theAppAndPreviewsGetTheirOwnValues() {
    var environment = ThunkEnvironment()
    #expect(environment[StubbedKey.self] == "live")
    environment.context = .preview
    #expect(environment[StubbedKey.self] == "preview")
    #expect(environment[LiveOnlyKey.self] == "live")
  }
}
