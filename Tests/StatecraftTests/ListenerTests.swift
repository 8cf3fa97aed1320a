import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

/// Issue 11: listeners start effects when an action is reduced or the state changes, with the
/// thunks' policies, and stop with the store.
@Suite(.catchesHangs) struct ListenerTests {
  @Test func anActionListenerRunsAfterTheActionIsReduced() async {
    let seen = Log<Int>()
    let store = makeStore(middleware: [
      createListenerMiddleware(
        .on(Add.self, where: { $0.amount > 1 }) { add, context in
          seen.append(context.state?.count ?? -1)  // the state already includes the action
          context.dispatch(SetLabel(label: "added \(add.amount)"))
        })
    ])
    store.dispatch(Add(amount: 1))  // not accepted by the predicate
    store.dispatch(Add(amount: 5))
    #expect(await eventually { store.state.label == "added 5" })
    #expect(seen.elements == [6])
  }

  @Test func aStateListenerWithADebounceRunsOnceForABurst() async {
    let clock = TestClock()
    let runs = Log<String>()
    let store = makeStore(middleware: [
      createListenerMiddleware(
        .when({ $0.label != $1.label }, id: "label", policy: .debounce(.milliseconds(300))) {
          context in
          runs.append(context.state?.label ?? "")
        })
    ])
    store.thunkEnvironment[ThunkClockKey.self] = clock
    for label in ["h", "ho", "hop"] { store.dispatch(SetLabel(label: label)) }
    store.dispatch(Increment())  // the label did not change: no run
    #expect(await eventually { clock.sleeperCount == 1 })
    await clock.advance(by: .milliseconds(300))
    #expect(await eventually { runs.elements == ["hop"] })
  }

  @Test func aListenerThatMatchesNothingStartsNothing() async throws {
    let runs = Log<String>()
    let store = makeStore(middleware: [
      createListenerMiddleware(.on(SetLabel.self) { _, _ in runs.append("ran") })
    ])
    for _ in 0..<100 { store.dispatch(Increment()) }
    // A thunk started after these would still run after this one.
    try await store.dispatch(Thunk<TestState> { _ in }).value
    #expect(runs.elements.isEmpty)
    #expect(store.state.count == 100)
  }

  class Request: Action, @unchecked Sendable {}
  final class Retry: Request, @unchecked Sendable {}

  @Test func aListenerOfAClassHearsItsSubclassesAndAValueTypeOnlyItself() async throws {
    let runs = Log<String>()
    let store = makeStore(middleware: [
      createListenerMiddleware(
        .on(Request.self) { request, _ in runs.append("request \(type(of: request))") },
        .on(Retry.self) { _, _ in runs.append("retry") },
        .on(Add.self) { add, _ in runs.append("add \(add.amount)") })
    ])
    store.dispatch(Retry())
    store.dispatch(Request())
    store.dispatch(Add(amount: 2))
    store.dispatch(Increment())
    #expect(await eventually { runs.elements.count == 4 })
    try await store.dispatch(Thunk<TestState> { _ in }).value
    #expect(
      Set(runs.elements) == ["request Retry", "retry", "request Request", "add 2"],
      "a subclass is heard by its superclass's listener; Increment by none")
  }

  @Test func effectsAreCancelledWhenTheStoreIsReleased() async {
    let clock = TestClock()
    let cancelled = Log<Bool>()
    var store: Store<TestState>? = makeStore(middleware: [
      createListenerMiddleware(
        .on(Increment.self) { _, context in
          do {
            try await context.clock.sleep(for: .seconds(60))
          } catch {
            cancelled.append(error is CancellationError)
          }
        })
    ])
    store?.thunkEnvironment[ThunkClockKey.self] = clock
    store?.dispatch(Increment())
    #expect(await eventually { clock.sleeperCount == 1 })
    store = nil
    #expect(await eventually { cancelled.elements == [true] })
  }
}
