/// The ids of an entity collection in their order, and where each id is: the collection's index.
///
/// The hash table maps an id to a *slot*, a number that stays the id's as long as it is in the
/// collection, and two arrays of integers map slots to positions and back. Inserting or removing
/// an id shifts the positions after it, and only the integer arrays are repaired: the hash table
/// is written once per id added or removed, never for the ids that move.
///
/// Invariants, for every position `p` below `count`:
/// `slots[ids[p]] == slotAtPosition[p]` and `positionOfSlot[slotAtPosition[p]] == p`; a slot
/// that no id holds is in `freeSlots` and its `positionOfSlot` is -1.

@usableFromInline
struct EntityIndex<ID: Hashable & Sendable>: Sendable {
  /// The ids, in the collection's order.
  @usableFromInline var ids: [ID] = []
  /// The slot of each id.
  @usableFromInline var slots: [ID: Int] = [:]
  /// The slot of the id at each position.
  @usableFromInline var slotAtPosition: [Int] = []
  /// The position of the id that holds each slot, or -1.
  @usableFromInline var positionOfSlot: [Int] = []
  /// Slots no id holds, reused last first.
  @usableFromInline var freeSlots: [Int] = []

  init() {}

  @inlinable var count: Int { ids.count }

  /// The position of `id`, if it is in the index.
  @inlinable func position(of id: ID) -> Int? {
    guard let slot = slots[id] else { return nil }
    return positionOfSlot[slot]
  }

  /// Adds `id`, which is not in the index, at `position`.
  ///
  /// - Complexity: O(1) at the end; otherwise O(*n* − `position`), to shift the positions after it.
  @inlinable mutating func insert(_ id: ID, at position: Int) {
    let slot: Int
    if let free = freeSlots.popLast() {
      slot = free
    } else {
      slot = positionOfSlot.count
      positionOfSlot.append(-1)
    }
    slots[id] = slot
    ids.insert(id, at: position)
    slotAtPosition.insert(slot, at: position)
    repairPositions(from: position)
  }

  /// Removes the id at `position` and returns it.
  ///
  /// - Complexity: O(1) at the end; otherwise O(*n* − `position`).
  @discardableResult
  @inlinable mutating func remove(at position: Int) -> ID {
    let id = ids.remove(at: position)
    let slot = slotAtPosition.remove(at: position)
    slots[id] = nil
    release(slot)
    repairPositions(from: position)
    return id
  }

  /// Removes the ids at `positions`, which are in increasing order, keeping the others in order.
  ///
  /// - Complexity: O(*n* − `positions.first`).
  @inlinable mutating func remove(atIncreasingPositions positions: [Int]) {
    guard let first = positions.first else { return }
    var write = first
    var next = 0
    for read in first..<ids.count {
      if next < positions.count, positions[next] == read {
        next += 1
        slots[ids[read]] = nil
        release(slotAtPosition[read])
        continue
      }
      ids.swapAt(write, read)
      slotAtPosition.swapAt(write, read)
      write += 1
    }
    ids.removeLast(ids.count - write)
    slotAtPosition.removeLast(slotAtPosition.count - write)
    repairPositions(from: first)
  }

  /// Moves the id at `source` to `destination`, shifting the ids between them by one.
  ///
  /// - Complexity: O(|`source` − `destination`|).
  @inlinable mutating func move(from source: Int, to destination: Int) {
    if source < destination {
      for position in source..<destination {
        ids.swapAt(position, position + 1)
        slotAtPosition.swapAt(position, position + 1)
      }
      repairPositions(in: source..<destination + 1)
    } else if destination < source {
      for position in stride(from: source, to: destination, by: -1) {
        ids.swapAt(position, position - 1)
        slotAtPosition.swapAt(position, position - 1)
      }
      repairPositions(in: destination..<source + 1)
    }
  }

  /// Puts the ids in the order `permutation` gives: the id at position `p` afterwards is the one
  /// at `permutation[p]` before.
  ///
  /// - Complexity: O(*n*).
  @inlinable mutating func permute(_ permutation: [Int]) {
    ids = permutation.map { ids[$0] }
    slotAtPosition = permutation.map { slotAtPosition[$0] }
    repairPositions(from: 0)
  }

  /// Removes every id.
  ///
  /// - Complexity: O(*n*).
  @inlinable mutating func removeAll(keepingCapacity: Bool) {
    ids.removeAll(keepingCapacity: keepingCapacity)
    slots.removeAll(keepingCapacity: keepingCapacity)
    slotAtPosition.removeAll(keepingCapacity: keepingCapacity)
    positionOfSlot.removeAll(keepingCapacity: keepingCapacity)
    freeSlots.removeAll(keepingCapacity: keepingCapacity)
  }

  /// Reserves room for `capacity` ids.
  ///
  /// - Complexity: O(*n*) if it reallocates.
  @inlinable mutating func reserveCapacity(_ capacity: Int) {
    ids.reserveCapacity(capacity)
    slots.reserveCapacity(capacity)
    slotAtPosition.reserveCapacity(capacity)
    positionOfSlot.reserveCapacity(capacity)
  }

  @inlinable mutating func release(_ slot: Int) {
    positionOfSlot[slot] = -1
    freeSlots.append(slot)
  }

  @inlinable mutating func repairPositions(from start: Int) {
    repairPositions(in: start..<ids.count)
  }

  @inlinable mutating func repairPositions(in positions: Range<Int>) {
    for position in positions {
      positionOfSlot[slotAtPosition[position]] = position
    }
  }
}
