import Statecraft
import StatecraftTestSupport
import StatecraftTesting
import Testing

@MainActor
@Suite(.catchesHangs) struct MemoizedSelectorTests {
  struct Catalog: Equatable, Sendable {
    var films: [String] = ["A New Hope", "Attack of the Clones", "Return of the Jedi"]
    var prefix = "A"
    var unrelated = 0
  }

  enum CatalogAction: Action {
    case setPrefix(String)
    case touch
  }

  static let reducer: InPlaceReducer<Catalog> = { state, action in
    switch action as? CatalogAction {
    case .setPrefix(let prefix): state.prefix = prefix
    case .touch: state.unrelated += 1
    case nil: break
    }
  }

  static func visibleFilms() -> MemoizedSelector<Catalog, [String]> {
    createSelector(\Catalog.films, \Catalog.prefix) { films, prefix in
      films.filter { $0.hasPrefix(prefix) }
    }
  }

  @Test func computedOncePerChangeForEverySubscriber() {
    let store = Store(reducer: Self.reducer, state: Catalog())
    let visible = Self.visibleFilms()
    let recorders = (0..<50).map { _ in RecordingSubscriber<[String]>() }
    for recorder in recorders { store.subscribe(recorder) { $0.select(visible) } }
    #expect(visible.recomputations == 1)
    store.dispatch(CatalogAction.setPrefix("R"))
    #expect(visible.recomputations == 2)
    #expect(
      recorders.allSatisfy {
        $0.values == [["A New Hope", "Attack of the Clones"], ["Return of the Jedi"]]
      })
  }

  @Test func notComputedWhenTheInputsDidNotChange() {
    let store = Store(reducer: Self.reducer, state: Catalog())
    let visible = Self.visibleFilms()
    let recorder = RecordingSubscriber<[String]>()
    store.subscribe(recorder) { $0.select(visible) }
    for _ in 0..<10 { store.dispatch(CatalogAction.touch) }
    #expect(visible.recomputations == 1)
    #expect(recorder.values.count == 1)
  }

  @Test func usableOffTheMainActor() async {
    let visible = Self.visibleFilms()
    await withTaskGroup(of: [String].self) { group in
      for _ in 0..<8 { group.addTask { visible(Catalog()) } }
      for await films in group { #expect(films.count == 2) }
    }
    #expect(visible.recomputations >= 1)
  }

  @Test func anUnstableInputIsReported() {
    let warnings = Log<String>()
    StatecraftDiagnostics.$warningHandler.withValue(
      { warnings.append($0) },
      operation: {
        let unstable = createSelector({ (_: Catalog) in UUIDLike.make() }, { $0.value })
        _ = unstable(Catalog())
      })
    #expect(warnings.elements.contains { $0.contains("returns unequal values for the same state") })
  }

  @Test func aNonEquatableOutputIsReported() {
    let warnings = Log<String>()
    StatecraftDiagnostics.$warningHandler.withValue(
      { warnings.append($0) },
      operation: {
        _ = createSelector(\Catalog.prefix) { Opaque(text: $0) }
      })
    #expect(warnings.elements.contains { $0.contains("Opaque, which is not Equatable") })
  }

  @Test func aWellBehavedSelectorIsNotReported() {
    let warnings = Log<String>()
    StatecraftDiagnostics.$warningHandler.withValue(
      { warnings.append($0) },
      operation: {
        _ = Self.visibleFilms()(Catalog())
      })
    #expect(warnings.elements.isEmpty)
  }

  @Test func computedOncePerRoundHoweverManySubscribersUseIt() {
    let store = Store(reducer: Self.reducer, state: Catalog())
    let visible = Self.visibleFilms()
    let evaluations = Log<Int>()
    let readUnrelated: @Sendable (Catalog) -> Int = { catalog in
      evaluations.append(catalog.unrelated)
      return catalog.unrelated
    }
    let counted = createSelector(readUnrelated) { $0 }
    let recorders = (0..<50).map { _ in RecordingSubscriber<Int>() }
    for recorder in recorders { store.subscribe(recorder) { $0.select(counted) } }
    let before = evaluations.elements.count  // one per subscription's first delivery
    store.dispatch(CatalogAction.touch)
    #expect(evaluations.elements.count == before + 1)  // one input read for 50 subscribers
    #expect(recorders.allSatisfy { $0.values == [0, 1] })
    #expect(visible.recomputations == 0)
  }

  /// A derived value whose `==` records each call.
  struct Compared: Equatable, Sendable {
    let value: Int
    let comparisons: Log<Int>

    static func == (lhs: Compared, rhs: Compared) -> Bool {
      lhs.comparisons.append(1)
      return lhs.value == rhs.value
    }
  }

  @Test func aHitIsARepeatWithoutComparingTheValue() {
    let store = Store(reducer: Self.reducer, state: Catalog())
    let comparisons = Log<Int>()
    let length = createSelector(\Catalog.prefix) {
      Compared(value: $0.count, comparisons: comparisons)
    }
    let recorders = (0..<20).map { _ in RecordingSubscriber<Compared>() }
    for recorder in recorders { store.subscribe(recorder) { $0.select(length) } }
    for _ in 0..<10 { store.dispatch(CatalogAction.touch) }
    #expect(comparisons.elements.isEmpty)  // 10 hits for 20 subscribers, none compared
    #expect(recorders.allSatisfy { $0.values.map(\.value) == [1] })

    store.dispatch(CatalogAction.setPrefix("R"))  // computed again, equal: compared, skipped
    #expect(length.recomputations == 2)
    #expect(comparisons.elements.count == 20)
    #expect(recorders.allSatisfy { $0.values.map(\.value) == [1] })

    store.dispatch(CatalogAction.setPrefix("Re"))
    #expect(recorders.allSatisfy { $0.values.map(\.value) == [1, 2] })
  }

  @Test func anExplicitSkipRepeatsTakesTheSameShortcut() {
    let store = Store(
      reducer: Self.reducer, state: Catalog(), automaticallySkipsRepeats: false)
    let comparisons = Log<Int>()
    let length = createSelector(\Catalog.prefix) {
      Compared(value: $0.count, comparisons: comparisons)
    }
    let recorder = RecordingSubscriber<Compared>()
    store.subscribe(recorder) { $0.select(length).skipRepeats() }
    for _ in 0..<5 { store.dispatch(CatalogAction.touch) }
    #expect(comparisons.elements.isEmpty)
    #expect(recorder.values.count == 1)
  }

  @Test func aPredicateOfTheAppStillSeesEveryHit() {
    let store = Store(
      reducer: Self.reducer, state: Catalog(), automaticallySkipsRepeats: false)
    let visible = Self.visibleFilms()
    let deliverAll = RecordingSubscriber<[String]>()
    let byCount = RecordingSubscriber<[String]>()
    store.subscribe(deliverAll) { $0.select(visible).skip(when: { _, _ in false }) }
    store.subscribe(byCount) { $0.select(visible).only(when: { $0.count == $1.count }) }
    for _ in 0..<3 { store.dispatch(CatalogAction.touch) }
    #expect(deliverAll.values.count == 4)  // the first state and three hits
    #expect(byCount.values.count == 4)
    #expect(visible.recomputations == 1)
  }

  @Test func aRoundOfAnotherStoreInsideASubscriberDoesNotLendItsValue() {
    // A subscriber of `first` dispatches to `second` on the main queue; `second`'s round, which
    // uses the same selector, runs inside `first`'s. The later subscribers of `first` must still
    // get `first`'s value.
    let first = Store(reducer: Self.reducer, state: Catalog())
    let second = Store(reducer: Self.reducer, state: Catalog())
    let visible = Self.visibleFilms()
    let trigger = Recorder<[String]>()
    let later = Recorder<[String]>()
    let onSecond = Recorder<[String]>()
    first.subscribe(trigger) { $0.select(visible) }
    second.subscribe(onSecond) { $0.select(visible) }
    first.subscribe(later) { $0.select(visible) }
    trigger.onNewState = { films in
      if films == ["Return of the Jedi"] { second.dispatch(CatalogAction.setPrefix("At")) }
    }
    first.dispatch(CatalogAction.setPrefix("R"))
    #expect(onSecond.values.last == ["Attack of the Clones"])
    #expect(later.values.last == ["Return of the Jedi"])
  }

  /// A tree whose scope's state has the root's type, so that one memoized selector serves both.
  struct Tree: Equatable, Sendable {
    var value: Int
    var children: [Tree] = []
  }

  struct SetValues: Action {
    let root: Int
    let child: Int
  }

  /// A scope's round runs inside the root's, between two of its subscriptions, and numbers a pass
  /// of its own: the root's next subscription still gets a value of the root's state, not the one
  /// the shared selector computed for the scope's.
  @Test func aScopesPassInsideTheRootsLeavesTheRootsLaterSubscriptionsTheRootsValue() {
    let store = Store<Tree>(
      reducer: { (state: inout Tree, action: any Action) in
        guard let set = action as? SetValues else { return }
        state.value = set.root
        state.children[0].value = set.child
      },
      state: Tree(value: 1, children: [Tree(value: 100)]))
    let value = createSelector(\Tree.value) { $0 }
    let first = RecordingSubscriber<Int>()
    let scoped = RecordingSubscriber<Int>()
    let last = RecordingSubscriber<Int>()
    store.subscribe(first) { $0.select(value) }
    let child = store.scope(\.children[0])
    child.subscribe(scoped) { $0.select(value) }
    store.subscribe(last) { $0.select(value) }
    store.dispatch(SetValues(root: 2, child: 200))
    #expect(first.values == [1, 2])
    #expect(scoped.values == [100, 200])
    #expect(last.values == [1, 2], "the root's last subscriber got the scope's value")
  }
}

private struct Opaque: Sendable {
  let text: String
}

/// A value that is new on every call, like a UUID.
private struct UUIDLike: Equatable, Sendable {
  static let counter = Guarded(0)
  let value: Int

  static func make() -> UUIDLike {
    UUIDLike(
      value: counter.withLock { counter in
        counter += 1
        return counter
      })
  }

}
