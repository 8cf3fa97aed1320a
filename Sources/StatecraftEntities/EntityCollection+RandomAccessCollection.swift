extension EntityCollection: RandomAccessCollection {
  /// A position in the collection: the entities are numbered from zero, as in an array.
  public typealias Index = Int

  /// The positions of the entities, in order.
  public typealias Indices = Range<Int>

  /// Iterates over the entities in order; it is the iterator of ``elements``.
  public typealias Iterator = IndexingIterator<[Element]>

  /// The position of the first entity: zero.
  ///
  /// - Complexity: O(1).
  @inlinable
  public var startIndex: Int { 0 }

  /// The position after the last entity: the number of entities.
  ///
  /// - Complexity: O(1).
  @inlinable
  public var endIndex: Int { storage.count }

  /// The entity at a position.
  ///
  /// - Parameter position: A position below ``endIndex``.
  /// - Complexity: O(1).
  @inlinable
  public subscript(position: Int) -> Element {
    storage[position]
  }

  /// An iterator over the entities, in order.
  ///
  /// - Returns: The iterator.
  /// - Complexity: O(1).
  @inlinable
  public func makeIterator() -> IndexingIterator<[Element]> {
    storage.makeIterator()
  }

}
