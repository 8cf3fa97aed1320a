extension EntityCollection {
  /// Adds an entity whose id is not in the collection yet; an entity with the same id stays as it
  /// is (Redux Toolkit's `addOne`).
  ///
  /// In insertion order the entity goes at the end; in a sorted collection, after the entities
  /// that do not go after it.
  ///
  /// - Parameter element: The entity.
  /// - Returns: `true` if it was added, `false` if the collection already had its id.
  /// - Complexity: Amortized O(1) in insertion order. Sorted: O(log *n*) comparisons to find the
  ///   place, then O(*n* − *p*) to insert at position *p*.
  @inlinable @discardableResult
  public mutating func add(_ element: Element) -> Bool {
    let id = identify(element)
    guard directory.position(of: id) == nil else { return false }
    insertNew(element, id: id, at: Self.insertionPosition(for: element, in: storage, orderRule))
    return true
  }

  /// Adds the entities whose ids are not in the collection yet, in order; of two with one id, the
  /// first is added (Redux Toolkit's `addMany`).
  ///
  /// - Parameter elements: The entities.
  /// - Complexity: O(*k*) for *k* entities in insertion order. Sorted: the new entities are
  ///   appended and the collection sorted once, O(*n* + *k* log(*n* + *k*)).
  @inlinable
  public mutating func add(contentsOf elements: some Sequence<Element>) {
    for element in elements {
      let id = identify(element)
      guard directory.position(of: id) == nil else { continue }
      insertNew(element, id: id, at: storage.count)
    }
    restoreSortOrder()
  }

  /// Adds an entity, or replaces the entity with its id (Redux Toolkit's `upsertOne` and
  /// `setOne`: the entity is replaced whole).
  ///
  /// A replaced entity keeps its place in insertion order; in a sorted collection it moves if it
  /// no longer fits between its neighbours.
  ///
  /// - Parameter element: The entity.
  /// - Returns: The entity it replaced, or `nil` if it was added.
  /// - Complexity: O(1) to replace in insertion order, amortized O(1) to add. Sorted: O(log *n*)
  ///   comparisons, plus the entities it moves over.
  @inlinable @discardableResult
  public mutating func upsert(_ element: Element) -> Element? {
    let id = identify(element)
    guard let position = directory.position(of: id) else {
      insertNew(element, id: id, at: Self.insertionPosition(for: element, in: storage, orderRule))
      return nil
    }
    let old = storage[position]
    storage[position] = element
    entityChanged(at: position, id: id)
    return old
  }

  /// Adds or replaces each of the entities, in order; of two with one id, the last stays
  /// (Redux Toolkit's `upsertMany`).
  ///
  /// - Parameter elements: The entities.
  /// - Complexity: O(*k*) for *k* entities in insertion order. Sorted: the collection is sorted
  ///   once after, O(*n* + *k*) when the entities stay in order, else O((*n* + *k*) log(*n* + *k*)).
  @inlinable
  public mutating func upsert(contentsOf elements: some Sequence<Element>) {
    for element in elements {
      let id = identify(element)
      if let position = directory.position(of: id) {
        storage[position] = element
      } else {
        insertNew(element, id: id, at: storage.count)
      }
    }
    restoreSortOrder()
  }

  /// Replaces every entity with the given ones; of two with one id, the first is kept (Redux
  /// Toolkit's `setAll`).
  ///
  /// - Parameter elements: The new entities.
  /// - Complexity: O(*n* + *k*) in insertion order, O(*n* + *k* log *k*) sorted.
  @inlinable
  public mutating func setAll(_ elements: some Sequence<Element>) {
    removeAll(keepingCapacity: true)
    add(contentsOf: elements)
  }
}
