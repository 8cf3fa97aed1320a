extension EntityCollection {
  /// Removes the entity with the given id (Redux Toolkit's `removeOne`).
  ///
  /// The entities after it move up one place.
  ///
  /// - Parameter id: The entity's id.
  /// - Returns: The removed entity, or `nil` if no entity has the id.
  /// - Complexity: O(*n* − *p*) for the entity at position *p*: O(1) for the last. The entities
  ///   after it are shifted and their positions renumbered in an integer array; the hash table
  ///   is written once.
  @inlinable @discardableResult
  public mutating func remove(id: ID) -> Element? {
    guard let position = directory.position(of: id) else { return nil }
    return removeEntity(at: position)
  }

  /// Removes the entities with the given ids, in one pass; ids not in the collection are skipped
  /// (Redux Toolkit's `removeMany`).
  ///
  /// - Parameter ids: The ids.
  /// - Complexity: O(*n* − *p* + *k* log *k*) for *k* ids whose first entity is at position *p*.
  @inlinable
  public mutating func remove(ids: some Sequence<ID>) {
    let positions = Set(ids.compactMap { directory.position(of: $0) }).sorted()
    removeEntities(atIncreasingPositions: positions)
  }

  /// Removes the entities that satisfy a predicate, in one pass, keeping the others in order.
  ///
  /// - Parameter shouldBeRemoved: Whether to remove an entity.
  /// - Complexity: O(*n*).
  @inlinable
  public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
    var positions: [Int] = []
    for (position, element) in storage.enumerated() where try shouldBeRemoved(element) {
      positions.append(position)
    }
    removeEntities(atIncreasingPositions: positions)
  }

  /// Removes every entity (Redux Toolkit's `removeAll`).
  ///
  /// - Parameter keepingCapacity: Whether to keep the storage's capacity, for a collection that
  ///   is filled again.
  /// - Complexity: O(*n*).
  @inlinable
  public mutating func removeAll(keepingCapacity: Bool = false) {
    directory.removeAll(keepingCapacity: keepingCapacity)
    storage.removeAll(keepingCapacity: keepingCapacity)
  }

  @inlinable
  mutating func removeEntities(atIncreasingPositions positions: [Int]) {
    guard let first = positions.first else { return }
    directory.remove(atIncreasingPositions: positions)
    var write = first
    var next = 0
    for read in first..<storage.count {
      if next < positions.count, positions[next] == read {
        next += 1
      } else {
        storage.swapAt(write, read)
        write += 1
      }
    }
    storage.removeLast(storage.count - write)
  }
}
