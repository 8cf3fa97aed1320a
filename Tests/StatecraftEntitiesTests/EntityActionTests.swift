import Statecraft
import StatecraftEntities
import StatecraftTestSupport
import StatecraftTesting
import StatecraftTools
import Testing

private struct Todo: Identifiable, Equatable, Codable, Sendable {
  let id: Int
  var title: String
  var isDone = false
}

private struct AppState: Equatable, Codable, Sendable {
  var todos: EntityCollection<Int, Todo> = []
  var archived: EntityCollection<Int, Todo> = []
}

/// A feature action that wraps the entity actions of one collection, as the docs advise.
private enum ArchiveAction: Action {
  case entities(EntityAction<Int, Todo>)
}

private func archiveReducer(state: inout EntityCollection<Int, Todo>, action: ArchiveAction) {
  switch action {
  case .entities(let action): state.apply(action)
  }
}

private let appReducer: InPlaceReducer<AppState> = combineReducers(
  scopedReducer(\AppState.todos, EntityCollection.reducer),
  scopedReducer(\AppState.archived, archiveReducer)
)

@Suite(.catchesHangs) struct EntityActionTests {
  @Test func aStoreAppliesEntityActionsThroughScopedReducer() {
    let store = Store(reducer: appReducer, state: AppState())
    store.dispatch(
      EntityAction<Int, Todo>.addMany([Todo(id: 1, title: "Buy milk"), Todo(id: 2, title: "Call")]))
    store.dispatch(EntityAction<Int, Todo>.update(1, .set(\.isDone, to: true)))
    store.dispatch(EntityAction<Int, Todo>.upsert(Todo(id: 3, title: "Water plants")))
    store.dispatch(EntityAction<Int, Todo>.remove(2))
    #expect(store.state.todos.ids == [1, 3])
    #expect(store.state.todos[id: 1]?.isDone == true)
    #expect(store.state.archived.isEmpty)

    store.dispatch(ArchiveAction.entities(.setAll([Todo(id: 9, title: "Old")])))
    #expect(store.state.archived.ids == [9])
    #expect(store.state.todos.ids == [1, 3])
    store.dispatch(EntityAction<Int, Todo>.removeAll)
    #expect(store.state.todos.isEmpty)
  }

  @MainActor @Test func testStoreChecksEntityChanges() async {
    let store = TestStore(
      initialState: AppState(todos: [Todo(id: 1, title: "Buy milk")]), reducer: appReducer)
    await store.send(EntityAction<Int, Todo>.update(1, .set(\.isDone, to: true))) {
      $0.todos[id: 1]?.isDone = true
    }
    await store.send(EntityAction<Int, Todo>.add(Todo(id: 2, title: "Call"))) {
      $0.todos.add(Todo(id: 2, title: "Call"))
    }
    await store.finish()
  }

  @MainActor @Test func aTestStoreFailureShowsTheChangedEntityUnderItsID() async {
    let todos = (1...5).map { Todo(id: $0, title: "Todo \($0)") }
    let store = TestStore(
      initialState: AppState(todos: EntityCollection(todos)), reducer: appReducer)
    await withKnownIssue {
      await store.send(EntityAction<Int, Todo>.update(4, .set(\.isDone, to: true))) {
        $0.todos[id: 3]?.isDone = true
      }
    } matching: { issue in
      let lines = issue.comments.map(\.rawValue).joined().split(separator: "\n")
      // The diff's changed lines sit under the entities' id labels, in context.
      guard let three = lines.firstIndex(where: { $0.contains("▿ 3: ") }),
        let four = lines.firstIndex(where: { $0.contains("▿ 4: ") })
      else { return false }
      let underThree = lines[three..<four]
      let underFour = lines[four...].prefix(6)
      return underThree.contains { $0.hasPrefix("− ") && $0.contains("isDone: true") }
        && underFour.contains { $0.hasPrefix("+ ") && $0.contains("isDone: true") }
    }
  }

  @Test func theInspectorsDiffShowsAnUpdateAsAChangeUnderEntitiesAndTheID() throws {
    var tracker = StateChangeTracker<AppState>()
    var state = AppState(todos: EntityCollection((1...100).map { Todo(id: $0, title: "\($0)") }))
    _ = try tracker.track(state)
    state.todos[id: 42]?.isDone = true
    let update = try tracker.track(state)
    #expect(update.map(\.path) == [[.key("todos"), .key("entities"), .key("42"), .key("isDone")]])

    state.todos.remove(id: 1)
    let removal = try tracker.track(state)
    // The removed entity is one key of `entities`; the entities after it do not change.
    #expect(removal.contains { $0.path == [.key("todos"), .key("entities"), .key("1")] })
    #expect(!removal.contains { $0.path.count > 3 && $0.path[1] == .key("entities") })
  }
}
