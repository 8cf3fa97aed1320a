import Statecraft

/// Memoized selectors of an entity collection in the state: all entities, their ids, their
/// number, one by id, and a filtered list (Redux Toolkit's `getSelectors`).
///
/// ```swift
/// let todos = EntitySelectors(\AppState.todos)
/// let open = todos.filtered { !$0.isDone }
///
/// mainStore.subscribe(self) { $0.select(open) }
/// let count = todos.total(mainStore.state)
/// ```
///
/// Each selector is a `MemoizedSelector` made by
/// `createSelector`: it computes its value again only when its input
/// changed, and subscribers selecting it skip the states where it did not.
///
/// > Important: A selector keeps its last input. ``all`` keeps the entities' array and
/// > ``filtered(_:)`` the whole collection, so the next in-place change to an entity copies that
/// > array once (O(*n*)) while the selector holds the old one; ``ids`` keeps the ids, which an
/// > in-place change does not touch. ``byID(_:)`` and ``total`` keep one entity or a number,
/// > and leave in-place changes O(1).
public struct EntitySelectors<State, ID: Hashable & Sendable, Element: Sendable & Equatable>:
  Sendable
{
  private let collection: @Sendable (State) -> EntityCollection<ID, Element>

  /// The entities, in order, as an array.
  ///
  /// - Complexity: The collection's `==` per call (O(1) when unchanged); O(1) to compute.
  public let all: MemoizedSelector<State, [Element]>

  /// The ids, in order.
  ///
  /// - Complexity: The ids' `==` per call (O(1) when unchanged); O(1) to compute.
  public let ids: MemoizedSelector<State, [ID]>

  /// The number of entities.
  ///
  /// - Complexity: O(1).
  public let total: MemoizedSelector<State, Int>

  /// Selectors of the collection that `collection` reads from the state.
  ///
  /// - Parameter collection: Reads the collection, usually a key path.
  /// - Complexity: O(1).
  public init(_ collection: @escaping @Sendable (State) -> EntityCollection<ID, Element>) {
    self.collection = collection
    all = createSelector({ collection($0).elements }, identity)
    ids = createSelector({ collection($0).ids }, identity)
    total = createSelector({ collection($0).count }, identity)
  }

  /// A selector of the entity with an id: `nil` while there is none.
  ///
  /// Its input is the entity itself, so a change to another entity does not notify its
  /// subscribers. Make one per id and keep it: each selector has its own cache.
  ///
  /// - Parameter id: The id.
  /// - Returns: The selector.
  /// - Complexity: O(1) to make; O(1) per call, plus the entity's `==`.
  public func byID(_ id: ID) -> MemoizedSelector<State, Element?> {
    let collection = self.collection
    return createSelector({ collection($0)[id: id] }, identity)
  }

  /// A selector of the entities that satisfy a predicate, in order.
  ///
  /// - Parameter isIncluded: Whether an entity is in the list.
  /// - Returns: The selector.
  /// - Complexity: O(1) to make. Per call, the collection's `==` (O(1) when unchanged), plus O(*n*)
  ///   calls of `isIncluded` when it changed.
  public func filtered(
    _ isIncluded: @escaping @Sendable (Element) -> Bool
  ) -> MemoizedSelector<State, [Element]> {
    createSelector(collection) { $0.filter(isIncluded) }
  }
}

/// The derived value of a selector whose input is the value itself.
@Sendable private func identity<Value>(_ value: Value) -> Value {
  value
}
