import Statecraft
import StatecraftTestSupport
import Testing

@MainActor
@Suite(.catchesHangs) struct SubscriptionTests {
  @Test func selectWithAKeyPath() {
    let store = makeStore()
    let recorder = Recorder<String>()
    store.subscribe(recorder) { $0.select(\.label) }
    store.dispatch(SetLabel(label: "a"))
    #expect(recorder.values == ["", "a"])
  }

  @Test func selectWithAClosure() {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select { $0.count * 10 } }
    store.dispatch(Increment())
    #expect(recorder.values == [0, 10])
  }

  @Test func selectionsChain() {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.label).select(\.count) }
    store.dispatch(SetLabel(label: "abc"))
    #expect(recorder.values == [0, 3])
  }

  @Test func automaticSkipRepeatsForEquatableSelections() {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    store.dispatch(SetLabel(label: "unrelated"))
    store.dispatch(Increment())
    store.dispatch(SetLabel(label: "unrelated again"))
    #expect(recorder.values == [0, 1])
  }

  @Test func automaticSkipRepeatsCanBeTurnedOff() {
    let store = makeStore(automaticallySkipsRepeats: false)
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count) }
    store.dispatch(SetLabel(label: "unrelated"))
    store.dispatch(Increment())
    #expect(recorder.values == [0, 0, 1])
  }

  @Test func automaticSkipRepeatsAppliesToGenericSubscribers() {
    let store = makeStore()
    let recorder = Recorder<Int>()
    subscribeGenerically(recorder, to: store, selecting: \.count)
    store.dispatch(SetLabel(label: "unrelated"))
    store.dispatch(Increment())
    #expect(recorder.values == [0, 1])
  }

  @Test func wholeStateSubscriptionSkipsEqualStates() {
    let store = makeStore()
    let recorder = Recorder<TestState>()
    store.subscribe(recorder)
    store.dispatch(Add(amount: 0))
    store.dispatch(Increment())
    #expect(recorder.values.map(\.count) == [0, 1])
  }

  @Test func nonEquatableSelectionsAreDeliveredEveryTime() {
    let store = makeStore()
    let recorder = Recorder<NotEquatable>()
    store.subscribe(recorder) { $0.select { NotEquatable(count: $0.count) } }
    store.dispatch(SetLabel(label: "x"))
    #expect(recorder.values.map(\.count) == [0, 0])
  }

  @Test func skipRepeatsWithAClosure() {
    let store = makeStore(automaticallySkipsRepeats: false)
    let recorder = Recorder<NotEquatable>()
    store.subscribe(recorder) {
      $0.select { NotEquatable(count: $0.count) }.skipRepeats { $0.count == $1.count }
    }
    store.dispatch(SetLabel(label: "x"))
    store.dispatch(Increment())
    #expect(recorder.values.map(\.count) == [0, 1])
  }

  @Test func explicitSkipRepeats() {
    let store = makeStore(automaticallySkipsRepeats: false)
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count).skipRepeats() }
    store.dispatch(SetLabel(label: "x"))
    store.dispatch(Increment())
    #expect(recorder.values == [0, 1])
  }

  @Test func skipWhenComparesWithThePreviousValue() {
    let store = makeStore()
    let recorder = Recorder<Int>()
    // Skip changes smaller than 5 relative to the previous state.
    store.subscribe(recorder) { $0.select(\.count).skip(when: { abs($1 - $0) < 5 }) }
    store.dispatch(Add(amount: 1))
    store.dispatch(Add(amount: 10))
    store.dispatch(Add(amount: 2))
    #expect(recorder.values == [0, 11])
  }

  /// The store's automatic skip-repeats after a skip of the user's compares with the last value
  /// that skip passed, not the last one it saw: a skip of `count` rising by one lets 0 after 1
  /// through, and the automatic skip then stops it, as the last value delivered is 0.
  @Test func theAutomaticSkipComparesWithTheLastValueTheUsersSkipPassed() {
    let store = makeStore()
    let recorder = Recorder<Int>()
    let token = store.subscribe(
      { $0.select(\.count).skip(when: { $1 == $0 + 1 }) },
      receive: { recorder.newState(state: $0) })
    let objectRecorder = Recorder<Int>()
    store.subscribe(objectRecorder) { $0.select(\.count).skip(when: { $1 == $0 + 1 }) }
    store.dispatch(Add(amount: 1))  // 1: skipped by the user's skip
    store.dispatch(Add(amount: -1))  // 0: passes it, equal to the last delivered
    store.dispatch(Add(amount: 5))  // 5
    #expect(recorder.values == [0, 5])
    #expect(objectRecorder.values == [0, 5])
    token.cancel()
  }

  /// `skipRepeats()` written out, as ReSwift code does, after the store's own: the same values.
  @Test func anExplicitSkipRepeatsWithTheAutomaticOneDeliversEachChangeOnce() {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count).skipRepeats() }
    store.dispatch(SetLabel(label: "x"))
    store.dispatch(Increment())
    store.dispatch(Add(amount: 0))
    store.dispatch(Increment())
    #expect(recorder.values == [0, 1, 2])
  }

  @Test func onlyWhenDeliversWhatThePredicateAccepts() {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count).only(when: { $1 > $0 }) }
    store.dispatch(Add(amount: 2))
    store.dispatch(Add(amount: -1))
    store.dispatch(Add(amount: 3))
    #expect(recorder.values == [0, 2, 4])
  }

  @Test func theFirstValueAlwaysPassesTheFilters() {
    let store = makeStore()
    let recorder = Recorder<Int>()
    store.subscribe(recorder) { $0.select(\.count).only(when: { _, _ in false }) }
    store.dispatch(Increment())
    #expect(recorder.values == [0])
  }

  /// Issue 29: what the first sentence of `subscribe(_:receive:)` and `SubscriptionToken` says.
  @Test func aTokenThatIsNotStoredEndsTheSubscriptionAfterTheFirstValue() {
    let store = makeStore()
    let received = Log<Int>()
    _ = store.subscribe({ $0.select(\.count) }, receive: { received.append($0) })
    store.dispatch(Increment())
    #expect(received.elements == [0])
    #expect(store._subscriptionCounts.standing == 0)
  }

  /// Issue 29: a selection that cannot be compared is delivered for every state; debug builds say
  /// so once, when subscribing, as `createSelector` does for its output.
  @Test func aSelectionThatIsNotEquatableIsReportedOncePerSubscription() {
    let store = makeStore()
    let warnings = Log<String>()
    let recorder = Recorder<CountBox>()
    var tokens: [SubscriptionToken] = []
    StatecraftDiagnostics.$warningHandler.withValue(
      { warnings.append($0) },
      operation: {
        store.subscribe(recorder) { $0.select { CountBox(count: $0.count) } }
        tokens.append(
          store.subscribe({ $0.select { CountBox(count: $0.count) } }, receive: { _ in }))
        // Not reported: a filter skips repeats, the value is Equatable, or it is the whole state.
        tokens.append(
          store.subscribe(
            { $0.select { CountBox(count: $0.count) }.skipRepeats { $0.count == $1.count } },
            receive: { _ in }))
        tokens.append(store.subscribe({ $0.select(\.count) }, receive: { _ in }))
        let whole = Recorder<TestState>()
        store.subscribe(whole)
        for _ in 0..<3 { store.dispatch(SetLabel(label: "same count")) }
        store.unsubscribe(whole)
      })
    #expect(warnings.elements.count == 2)
    #expect(
      warnings.elements.allSatisfy { $0.contains("selects CountBox, which is not Equatable") })
    #expect(recorder.values.count == 4, "delivered for every state, as the warning says")
    withExtendedLifetime(tokens) {}
  }
}

/// A selection that is not `Equatable`.
struct CountBox {
  let count: Int
}

struct NotEquatable {
  let count: Int
}

/// Subscribes from a context where `Value` is not known to be `Equatable`.
@MainActor
private func subscribeGenerically<Value>(
  _ recorder: Recorder<Value>, to store: Store<TestState>,
  selecting keyPath: KeyPath<TestState, Value>
) {
  store.subscribe(recorder) { $0.select(keyPath) }
}
