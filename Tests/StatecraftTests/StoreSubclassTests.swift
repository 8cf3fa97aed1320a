import Statecraft
import StatecraftTestSupport
import Testing

/// A store subclass that reports its `deinit`, as an app that subclasses `Store` does.
///
/// `@unchecked Sendable` restated, as the compiler asks of a subclass: its one stored property
/// is a `let` of a `Sendable` type.
final class DeinitReportingStore<State: Sendable>: Store<State>, @unchecked Sendable {
  let onDeinit: @Sendable () -> Void

  init(reducer: @escaping Reducer<State>, state: State?, onDeinit: @escaping @Sendable () -> Void) {
    self.onDeinit = onDeinit
    super.init(reducer: reducer, state: state, middleware: [], automaticallySkipsRepeats: true)
  }

  required init(
    reducer: @escaping Reducer<State>, state: State?, middleware: [Middleware<State>],
    automaticallySkipsRepeats: Bool
  ) {
    onDeinit = {}
    super.init(
      reducer: reducer, state: state, middleware: middleware,
      automaticallySkipsRepeats: automaticallySkipsRepeats)
  }

  deinit { onDeinit() }
}

/// A subclass with no initializer of its own: it inherits every initializer of `Store`.
final class PlainSubclassStore<State: Sendable>: Store<State>, @unchecked Sendable {}

@Suite(.catchesHangs) struct StoreSubclassTests {
  @Test func aSubclassDeinitRunsOnceAndReleasesTheEngine() {
    let deinits = Guarded(0)
    let capture = Capture()
    weak let weakCapture = capture
    do {
      let store = DeinitReportingStore<TestState>(
        reducer: { action, state in
          withExtendedLifetime(capture) { testReducer(action: action, state: state) }
        },
        state: nil,
        onDeinit: { deinits.withLock { $0 += 1 } })
      store.dispatch(Increment())
      #expect(store.state.count == 1)
    }
    #expect(deinits.withLock { $0 } == 1)
    _ = consume capture
    #expect(weakCapture == nil)
  }

  @MainActor
  @Test func aSubclassMadeStoreDispatchesAndNotifiesLikeAnyStore() {
    let store = DeinitReportingStore<TestState>(reducer: testReducer, state: nil, onDeinit: {})
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    store.dispatch(Increment())
    store.dispatch(SetLabel(label: "the same count, skipped"))
    store.dispatch(Add(amount: 2))
    #expect(recorder.values == [0, 1, 3])
    #expect(recorder.allOnMainQueue)
    #expect(store.state == TestState(count: 3, label: "the same count, skipped"))
  }

  @MainActor
  @Test func aSubclassWithoutInitializersInheritsTheStoresInitializers() {
    let store = PlainSubclassStore<TestState>(reducer: testReducer, state: nil)
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    store.dispatch(Increment())
    #expect(recorder.values == [0, 1])
    #expect(type(of: store) == PlainSubclassStore<TestState>.self)
  }
}
