import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

struct Page: Equatable, Sendable {
  var counter = CounterState()
  var title = ""
}

struct SetTitle: Action { let title: String }

/// A reducer built by composition: the in-place shape.
let pageReducer = combineReducers(
  scopedReducer(\Page.counter, inPlace(counterReducer)),
  { (page: inout Page, action: any Action) in
    if let action = action as? SetTitle { page.title = action.title }
  }
)

/// A reducer as a target with default main-actor isolation declares it.
@MainActor
func mainActorCounterReducer(action: Action, state: CounterState?) -> CounterState {
  counterReducer(action: action, state: state)
}

/// TestStore takes every reducer shape a store takes.
@MainActor
@Suite(.catchesHangs) struct TestStoreReducerShapeTests {
  @Test func aComposedInPlaceReducer() async {
    let store = TestStore(initialState: Page(), reducer: pageReducer)
    await store.send(Increment()) { $0.counter.count = 1 }
    await store.send(SetTitle(title: "Films")) { $0.title = "Films" }
    await store.finish()
  }

  @Test func aComposedInPlaceReducerFailsWithADiff() async {
    let store = TestStore(initialState: Page(), reducer: pageReducer)
    await withKnownIssue {
      await store.send(SetTitle(title: "Films")) { $0.title = "Filmz" }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("State after SetTitle") && text.contains("Filmz")
    }
  }

  @Test func aMainActorReducerWithAThunkDispatchingFromAnotherThread() async {
    let store = TestStore(initialState: CounterState(), reducer: mainActorCounterReducer)
    await store.send(
      Thunk<CounterState> { context in
        await Task.detached { context.dispatch(SetLabel(label: "loaded")) }.value
      })
    // The action hops to the main queue, which parallel suites share (and some hold on
    // purpose, C14): a generous bound, which costs nothing when the action comes at once.
    await store.receive(SetLabel.self, timeout: .seconds(10)) { $0.label = "loaded" }
    await store.finish(timeout: .seconds(10))
  }

  @Test func aMainActorReducerFailsWithADiff() async {
    let store = TestStore(initialState: CounterState(), reducer: mainActorCounterReducer)
    await withKnownIssue {
      await store.send(Increment()) { $0.count = 5 }
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("count: 5")
    }
  }
}
