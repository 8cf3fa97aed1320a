import Statecraft
import StatecraftTestSupport
import Testing

@Suite(.catchesHangs) struct StoreTests {
  @Test func storeWithoutStateDispatchesInitThroughTheMiddleware() {
    let seen = Log<String>()
    let spy: Middleware<TestState> = { _, getState in
      { next in
        { action in
          seen.append("\(type(of: action)) state=\(getState() == nil ? "nil" : "set")")
          next(action)
        }
      }
    }
    let store = Store<TestState>(reducer: testReducer, state: nil, middleware: [spy])
    #expect(seen.elements == ["StatecraftInit state=nil"])
    #expect(store.state == TestState())
  }

  @Test func storeWithStateDispatchesNoInitAction() {
    let seen = Log<String>()
    let spy = typeLogger(seen)
    let store = makeStore(middleware: [spy])
    #expect(seen.elements.isEmpty)
    #expect(store.state.count == 0)
  }

  @Test func swallowedInitStillLeavesTheStoreWithAState() {
    let swallowAll: Middleware<TestState> = { _, _ in { _ in { _ in } } }
    let store = Store<TestState>(reducer: testReducer, state: nil, middleware: [swallowAll])
    #expect(store.state == TestState())
  }

  @Test func inPlaceReducer() {
    let store = Store<TestState>(
      reducer: { state, action in
        if action is Increment { state.count += 1 }
      },
      state: TestState(count: 41)
    )
    store.dispatch(Increment())
    #expect(store.state.count == 42)
  }

  @Test func inPlaceReducerMutatesTheOnlyCopyOfTheState() {
    let unique = Guarded<[Bool]>([])
    let store = Store<Holder>(
      reducer: { state, _ in
        let isUnique = isKnownUniquelyReferenced(&state.buffer)
        unique.withLock { $0.append(isUnique) }
      },
      state: Holder()
    )
    store.dispatch(Increment())
    store.dispatch(Increment())
    #expect(unique.withLock { $0 } == [true, true])
  }

  @Test func reSwiftShapedReducerReceivesTheOnlyCopyOfTheState() {
    let store = Store<Holder>(reducer: uniquenessCheckingReducer, state: Holder())
    store.dispatch(Increment())
    store.dispatch(Increment())
    #expect(store.state.uniqueness == [true, true])
  }

  // Tests build without optimization: what `Reducer`'s documentation says of debug builds.
  @Test func aReducerClosureThatWritesOutItsConsumingParameterReceivesTheOnlyCopy() {
    let store = Store<Holder>(
      reducer: { (action: any Action, state: consuming Holder?) -> Holder in
        var state = state ?? Holder()
        state.uniqueness.append(isKnownUniquelyReferenced(&state.buffer))
        return state
      },
      state: Holder())
    store.dispatch(Increment())
    store.dispatch(Increment())
    #expect(store.state.uniqueness == [true, true])
  }

  @available(*, deprecated, message: "tests the deprecated action creators")
  @Test func classicActionCreatorSeesTheStateAndItsActionIsDispatched() {
    let store = makeStore()
    store.dispatch(Add(amount: 3))
    let creator: Store<TestState>.ActionCreator = { state, _ in
      state.count == 3 ? SetLabel(label: "three") : nil
    }
    store.dispatch(creator)
    #expect(store.state.label == "three")
  }

  @available(*, deprecated, message: "tests the deprecated action creators")
  @Test func actionCreatorReturningNilDispatchesNothing() {
    let store = makeStore()
    var reached = false
    store.dispatch { _, _ in
      reached = true
      return nil
    }
    #expect(reached)
    #expect(store.state == TestState())
  }

  @available(*, deprecated, message: "tests the deprecated action creators")
  @Test func actionCreatorMayDispatchThroughTheStoreItIsGiven() {
    let store = makeStore()
    store.dispatch { _, store in
      store.dispatch(Increment())
      return Increment()
    }
    #expect(store.state.count == 2)
  }
}

final class Buffer {}

/// The shape the docs recommend for large states: a consuming parameter, unwrapped with
/// `consume`, so the reducer owns the only reference unless the store kept one.
private func uniquenessCheckingReducer(action: Action, state: consuming Holder?) -> Holder {
  guard var state = consume state else { return Holder() }
  state.uniqueness.append(isKnownUniquelyReferenced(&state.buffer))
  return state
}

struct Holder: @unchecked Sendable {
  // Only the store's reducer touches the buffer, one action at a time.
  var buffer = Buffer()
  var uniqueness: [Bool] = []
}

@Suite(.catchesHangs) struct IntervalTests {
  @Test func namedLengthsAndTheirDescriptions() {
    #expect(Interval.milliseconds(250).nanoseconds == 250_000_000)
    #expect(Interval.seconds(1.5).nanoseconds == 1_500_000_000)
    #expect(Interval.milliseconds(-5) == .zero)
    #expect("\(Interval.milliseconds(250))" == "250 ms")
    #expect("\(Interval.seconds(2))" == "2.0 s")
  }

  @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
  @Test func aDurationConverts() {
    #expect(Interval(.milliseconds(1_500)).nanoseconds == 1_500_000_000)
    #expect(Interval(.seconds(-1)) == .zero)
  }
}
