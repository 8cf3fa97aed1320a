// Where entities go: the insertion position of a new entity, the place of a changed one, and
// the whole collection's order after a batch. Every mutation of the collection goes through
// these, which keep the storage and the directory in step.

extension EntityCollection {
  /// The position a new entity takes in `storage`: the end in insertion order; in a sorted
  /// collection, after the last entity that does not go after it, found by binary search.
  ///
  /// - Complexity: O(log *n*) comparisons when sorted, O(1) otherwise.
  @inlinable
  static func insertionPosition(
    for element: Element, in storage: [Element], _ order: EntityOrder<Element>
  ) -> Int {
    guard case .sorted(let areInIncreasingOrder) = order.rule else { return storage.count }
    return upperBound(of: element, in: storage, 0..<storage.count, areInIncreasingOrder)
  }

  /// The first position in `range` whose entity goes after `element`, or the range's end.
  @inlinable
  static func upperBound(
    of element: Element, in storage: [Element], _ range: Range<Int>,
    _ areInIncreasingOrder: (Element, Element) -> Bool
  ) -> Int {
    var low = range.lowerBound
    var high = range.upperBound
    while low < high {
      let middle = low + (high - low) / 2
      if areInIncreasingOrder(element, storage[middle]) {
        high = middle
      } else {
        low = middle + 1
      }
    }
    return low
  }

  /// Inserts `element`, whose id `id` is not in the collection, at `position`.
  ///
  /// - Complexity: O(1) at the end, otherwise O(*n* − `position`).
  @inlinable
  mutating func insertNew(_ element: Element, id: ID, at position: Int) {
    directory.insert(id, at: position)
    if position == storage.count {
      storage.append(element)
    } else {
      storage.insert(element, at: position)
    }
  }

  /// Removes the entity at `position` from the storage and the directory.
  ///
  /// - Complexity: O(1) at the end, otherwise O(*n* − `position`).
  @inlinable
  mutating func removeEntity(at position: Int) -> Element {
    directory.remove(at: position)
    return storage.remove(at: position)
  }

  /// Checks the id of the entity at `position`, which was changed in place, and in a sorted
  /// collection moves it if it no longer fits between its neighbours.
  ///
  /// - Complexity: O(1) if it stays; O(log *n* + *d*) to move it *d* places.
  @inlinable
  mutating func entityChanged(at position: Int, id: ID) {
    Self.requireID(identify(storage[position]), is: id)
    guard case .sorted(let areInIncreasingOrder) = orderRule.rule else { return }
    let destination: Int
    if position > 0, areInIncreasingOrder(storage[position], storage[position - 1]) {
      destination = Self.upperBound(
        of: storage[position], in: storage, 0..<position, areInIncreasingOrder)
    } else if position + 1 < storage.count,
      areInIncreasingOrder(storage[position + 1], storage[position])
    {
      let after = position + 1..<storage.count
      destination =
        Self.upperBound(of: storage[position], in: storage, after, areInIncreasingOrder) - 1
    } else {
      return
    }
    move(from: position, to: destination)
  }

  /// Moves the entity at `source` to `destination`, shifting those between by one place.
  ///
  /// - Complexity: O(|`source` − `destination`|).
  @inlinable
  mutating func move(from source: Int, to destination: Int) {
    if source < destination {
      for position in source..<destination { storage.swapAt(position, position + 1) }
    } else {
      for position in stride(from: source, to: destination, by: -1) {
        storage.swapAt(position, position - 1)
      }
    }
    directory.move(from: source, to: destination)
  }

  /// Sorts a sorted collection after a batch changed it, keeping the order of entities that
  /// compare equal (the sort is stable).
  ///
  /// - Complexity: O(*n*) if it is in order, otherwise O(*n* log *n*).
  @inlinable
  mutating func restoreSortOrder() {
    guard case .sorted(let areInIncreasingOrder) = orderRule.rule else { return }
    let elements = storage
    let isInOrder = elements.indices.dropFirst().allSatisfy {
      !areInIncreasingOrder(elements[$0], elements[$0 - 1])
    }
    if isInOrder { return }
    var permutation = Array(elements.indices)
    // Ties are broken by position, so the sort is stable whatever algorithm `sort` uses.
    permutation.sort { first, second in
      if areInIncreasingOrder(elements[first], elements[second]) { return true }
      if areInIncreasingOrder(elements[second], elements[first]) { return false }
      return first < second
    }
    storage = permutation.map { elements[$0] }
    directory.permute(permutation)
  }
}
