extension EntityCollection {
  /// Changes the entity with the given id in place (Redux Toolkit's `updateOne`, with a
  /// closure).
  ///
  /// ```swift
  /// todos.update(id: 1) { $0.isDone.toggle() }
  /// ```
  ///
  /// The entity is changed where it is stored, so the collection's storage is not copied when the
  /// collection holds the only reference to it. A sorted collection moves the entity if it no
  /// longer fits between its neighbours.
  ///
  /// > Important: `body` must not change the entity's id.
  ///
  /// - Parameters:
  ///   - id: The entity's id.
  ///   - body: Changes the entity.
  /// - Returns: What `body` returns, or `nil` if no entity has the id (then `body` is not called).
  /// - Complexity: O(1), plus the entities a sorted collection moves it over and O(log *n*)
  ///   comparisons to find its new place.
  @inlinable @discardableResult
  public mutating func update<Result>(
    id: ID, _ body: (inout Element) throws -> Result
  ) rethrows -> Result? {
    guard let position = directory.position(of: id) else { return nil }
    defer { entityChanged(at: position, id: id) }
    return try body(&storage[position])
  }

  /// Applies a change to the entity with the given id (Redux Toolkit's `updateOne`, with
  /// `changes`).
  ///
  /// ```swift
  /// todos.update(id: 1, applying: .set(\.title, to: "Buy oat milk"))
  /// ```
  ///
  /// - Parameters:
  ///   - id: The entity's id.
  ///   - change: The change.
  /// - Returns: `true` if an entity has the id.
  /// - Complexity: What ``update(id:_:)`` costs, plus the change's assignments.
  @inlinable @discardableResult
  public mutating func update(id: ID, applying change: EntityChange<Element>) -> Bool {
    update(id: id) { change.apply(to: &$0) } != nil
  }

  /// Changes each entity with one of the given ids in place; ids not in the collection are
  /// skipped.
  ///
  /// - Parameters:
  ///   - ids: The entities' ids.
  ///   - body: Changes an entity.
  /// - Complexity: O(*k*) for *k* ids in insertion order. Sorted: the collection is sorted once
  ///   after, O(*n* + *k*) when the entities stay in order, else O(*n* log *n*).
  @inlinable
  public mutating func update(
    ids: some Sequence<ID>, _ body: (inout Element) throws -> Void
  ) rethrows {
    defer { restoreSortOrder() }
    for id in ids {
      guard let position = directory.position(of: id) else { continue }
      defer { Self.requireID(identify(storage[position]), is: id) }
      try body(&storage[position])
    }
  }

  /// Applies each change to the entity with its id, in order; ids not in the collection are
  /// skipped (Redux Toolkit's `updateMany`).
  ///
  /// - Parameter changes: Pairs of an id and the change to its entity.
  /// - Complexity: O(*k*) for *k* changes in insertion order, plus their assignments. Sorted: the
  ///   collection is sorted once after, O(*n* + *k*) when the entities stay in order, else
  ///   O(*n* log *n*).
  @inlinable
  public mutating func update(contentsOf changes: some Sequence<(ID, EntityChange<Element>)>) {
    defer { restoreSortOrder() }
    for (id, change) in changes {
      guard let position = directory.position(of: id) else { continue }
      change.apply(to: &storage[position])
      Self.requireID(identify(storage[position]), is: id)
    }
  }
}
