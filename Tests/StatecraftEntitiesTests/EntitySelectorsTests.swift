import Statecraft
import StatecraftEntities
import StatecraftTestSupport
import Testing

private struct AppState: Equatable, Sendable {
  var items: EntityCollection<Int, Item> = []
  var unrelated = 0
}

private struct Upsert: Action { let item: Item }
private struct Remove: Action { let id: Int }
private struct Touch: Action {}

private let reducer: InPlaceReducer<AppState> = { state, action in
  switch action {
  case let action as Upsert: state.items.upsert(action.item)
  case let action as Remove: state.items.remove(id: action.id)
  case is Touch: state.unrelated += 1
  default: break
  }
}

/// The selectors are `createSelector`'s memoized selectors: computed again only when their input
/// changed.
@Suite(.catchesHangs) struct EntitySelectorsTests {
  @Test func allIDsAndTotalFollowTheCollectionAndAreNotRecomputedOtherwise() {
    let selectors = EntitySelectors(\AppState.items)
    let store = Store(reducer: reducer, state: AppState())
    store.dispatch(Upsert(item: Item(id: 1, rank: 0)))
    store.dispatch(Upsert(item: Item(id: 2, rank: 0)))
    #expect(selectors.all(store.state).map(\.id) == [1, 2])
    #expect(selectors.ids(store.state) == [1, 2])
    #expect(selectors.total(store.state) == 2)
    let computed = selectors.all.recomputations

    store.dispatch(Touch())
    #expect(selectors.all(store.state).count == 2)
    #expect(selectors.all.recomputations == computed)

    store.dispatch(Remove(id: 1))
    #expect(selectors.all(store.state).map(\.id) == [2])
    #expect(selectors.total(store.state) == 1)
    #expect(selectors.all.recomputations == computed + 1)
  }

  @Test func byIDChangesOnlyWhenItsEntityChanges() {
    let selectors = EntitySelectors(\AppState.items)
    let two = selectors.byID(2)
    let store = Store(reducer: reducer, state: AppState())
    #expect(two(store.state) == nil)
    store.dispatch(Upsert(item: Item(id: 2, rank: 3)))
    #expect(two(store.state) == Item(id: 2, rank: 3))
    let computed = two.recomputations

    store.dispatch(Upsert(item: Item(id: 1, rank: 0)))
    store.dispatch(Upsert(item: Item(id: 5, rank: 0)))
    #expect(two(store.state) == Item(id: 2, rank: 3))
    #expect(two.recomputations == computed)

    store.dispatch(Upsert(item: Item(id: 2, rank: 4)))
    #expect(two(store.state)?.rank == 4)
    store.dispatch(Remove(id: 2))
    #expect(two(store.state) == nil)
  }

  @Test func filteredKeepsTheOrderAndRecomputesOnlyForCollectionChanges() {
    let selectors = EntitySelectors(\AppState.items)
    let high = selectors.filtered { $0.rank >= 5 }
    let store = Store(reducer: reducer, state: AppState())
    for (id, rank) in [(1, 9), (2, 1), (3, 5), (4, 7)] {
      store.dispatch(Upsert(item: Item(id: id, rank: rank)))
    }
    #expect(high(store.state).map(\.id) == [1, 3, 4])
    let computed = high.recomputations
    store.dispatch(Touch())
    #expect(high(store.state).map(\.id) == [1, 3, 4])
    #expect(high.recomputations == computed)
    store.dispatch(Upsert(item: Item(id: 2, rank: 6)))
    #expect(high(store.state).map(\.id) == [1, 2, 3, 4])
  }

  @MainActor @Test func aSubscriberOfOneEntityIsNotNotifiedWhenAnotherChanges() {
    let selectors = EntitySelectors(\AppState.items)
    let store = Store(reducer: reducer, state: AppState())
    store.dispatch(Upsert(item: Item(id: 1, rank: 0)))
    let received = Received()
    let token = store.subscribe(
      { $0.select(selectors.byID(1)) }, receive: { received.values.append($0) })
    store.dispatch(Upsert(item: Item(id: 2, rank: 0)))
    store.dispatch(Upsert(item: Item(id: 1, rank: 8)))
    #expect(received.values.map { $0?.rank } == [0, 8])
    token.cancel()
  }
}

@MainActor private final class Received {
  var values: [Item?] = []
}
