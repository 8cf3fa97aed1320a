import Statecraft

/// The usual changes to an entity collection as actions: add, upsert, update and remove one or
/// many, remove all, set all.
///
/// A feature that keeps a list can use these actions instead of writing its own and the reducer
/// that applies them. Wrap them in the feature's action, so that two collections of the same
/// types stay apart, and apply them with ``EntityCollection/apply(_:)``:
///
/// ```swift
/// enum TodosAction: Action {
///   case entities(EntityAction<Int, Todo>)
///   case clearDone
/// }
///
/// func todosReducer(state: inout TodosState, action: TodosAction) {
///   switch action {
///   case .entities(let action): state.todos.apply(action)
///   case .clearDone: state.todos.removeAll { $0.isDone }
///   }
/// }
///
/// mainStore.dispatch(TodosAction.entities(.upsert(Todo(id: 3, title: "Water plants"))))
/// ```
///
/// A state with one collection of each type can take the actions as they are, with
/// ``EntityCollection/reducer``.
public enum EntityAction<ID: Hashable & Sendable, Element: Sendable>: Action {
  /// Adds an entity whose id is not in the collection: ``EntityCollection/add(_:)``.
  case add(Element)
  /// Adds the entities whose ids are not in the collection:
  /// ``EntityCollection/add(contentsOf:)``.
  case addMany([Element])
  /// Adds an entity or replaces the one with its id: ``EntityCollection/upsert(_:)``.
  case upsert(Element)
  /// Adds or replaces each entity: ``EntityCollection/upsert(contentsOf:)``.
  case upsertMany([Element])
  /// Changes the entity with an id: ``EntityCollection/update(id:applying:)``.
  case update(ID, EntityChange<Element>)
  /// Changes the entity of each id: ``EntityCollection/update(contentsOf:)``.
  case updateMany([(ID, EntityChange<Element>)])
  /// Removes the entity with an id: ``EntityCollection/remove(id:)``.
  case remove(ID)
  /// Removes the entities with the ids: ``EntityCollection/remove(ids:)``.
  case removeMany([ID])
  /// Removes every entity: ``EntityCollection/removeAll(keepingCapacity:)``.
  case removeAll
  /// Replaces every entity: ``EntityCollection/setAll(_:)``.
  case setAll([Element])
}

extension EntityCollection {
  /// Applies an entity action: the reducer of ``EntityAction``.
  ///
  /// - Parameter action: The action.
  /// - Complexity: The cost of the method the action names.
  public mutating func apply(_ action: EntityAction<ID, Element>) {
    switch action {
    case .add(let element): add(element)
    case .addMany(let elements): add(contentsOf: elements)
    case .upsert(let element): upsert(element)
    case .upsertMany(let elements): upsert(contentsOf: elements)
    case .update(let id, let change): update(id: id, applying: change)
    case .updateMany(let changes): update(contentsOf: changes)
    case .remove(let id): remove(id: id)
    case .removeMany(let ids): remove(ids: ids)
    case .removeAll: removeAll()
    case .setAll(let elements): setAll(elements)
    }
  }

  /// A feature reducer that applies ``EntityAction``s to a collection, for
  /// `scopedReducer(_:_:)`.
  ///
  /// ```swift
  /// let appReducer = combineReducers(
  ///   scopedReducer(\AppState.todos, EntityCollection.reducer),
  ///   scopedReducer(\AppState.settings, settingsReducer)
  /// )
  /// ```
  ///
  /// > Important: It applies every `EntityAction` of the collection's types. A state with two
  /// > collections of the same types gives each its own action enum and calls
  /// > ``apply(_:)``.
  ///
  /// - Complexity: O(1) to get; each call costs what ``apply(_:)`` costs.
  public static var reducer: @Sendable (inout Self, EntityAction<ID, Element>) -> Void {
    { collection, action in collection.apply(action) }
  }
}
