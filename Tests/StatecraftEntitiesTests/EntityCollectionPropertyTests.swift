import StatecraftTestSupport
import Testing

@testable import StatecraftEntities

/// The plain model of a collection that the property tests hold it to: a dictionary of the
/// entities and an array of their ids in order. In a sorted mode the order is computed by sorting
/// the ids whenever the model changes.
private struct Model {
  enum Mode { case insertion, total, ties }

  let mode: Mode
  var entities: [Int: Item] = [:]
  var order: [Int] = []

  mutating func add(_ item: Item) {
    guard entities[item.id] == nil else { return }
    entities[item.id] = item
    order.append(item.id)
  }

  mutating func upsert(_ item: Item) {
    if entities.updateValue(item, forKey: item.id) == nil { order.append(item.id) }
  }

  mutating func update(_ id: Int, _ body: (inout Item) -> Void) {
    guard var item = entities[id] else { return }
    body(&item)
    entities[id] = item
  }

  mutating func remove(_ id: Int) {
    guard entities.removeValue(forKey: id) != nil else { return }
    order.removeAll { $0 == id }
  }

  mutating func removeAll() {
    entities = [:]
    order = []
  }

  /// The ids in the order the collection must have, in the modes where it is determined.
  var expectedOrder: [Int]? {
    switch mode {
    case .insertion: order
    case .total: order.sorted { (entities[$0]?.rank ?? 0, $0) < (entities[$1]?.rank ?? 0, $1) }
    case .ties: nil
    }
  }
}

/// Every operation of the collection, run in random sequences against the model: after each
/// step the collection holds the model's entities, in the model's order (or, sorted with ties,
/// in an order sorted by rank), and its index agrees with its ids.
@Suite(.catchesHangs) struct EntityCollectionPropertyTests {
  @Test func insertionOrderMatchesTheModel() {
    run(mode: .insertion, order: .insertion, seed: 1)
  }

  @Test func aTotalSortOrderMatchesTheModel() {
    run(mode: .total, order: byRankThenID, seed: 2)
  }

  @Test func aSortOrderWithTiesStaysSortedAndMatchesTheModel() {
    run(mode: .ties, order: byRank, seed: 3)
  }

  private func run(mode: Model.Mode, order: EntityOrder<Item>, seed: UInt64) {
    var random = SeededRandom(seed: seed)
    var checkedSteps = 0
    for sequence in 0..<200 {
      var collection = EntityCollection<Int, Item>(order: order)
      var model = Model(mode: mode)
      for step in 0..<200 {
        let operation = apply(randomOperation: &random, to: &collection, model: &model)
        if let failure = mismatch(collection, model) {
          Issue.record(
            "seed \(seed), sequence \(sequence), step \(step), after \(operation): \(failure)")
          return
        }
        checkedSteps += 1
      }
    }
    #expect(checkedSteps == 200 * 200)
  }

  /// Runs one random operation on both and returns its name.
  private func apply(
    randomOperation random: inout SeededRandom, to collection: inout EntityCollection<Int, Item>,
    model: inout Model
  ) -> String {
    let id = random.next(upTo: 40)
    let delta = random.next(upTo: 7) - 3
    let bump: @Sendable (inout Item) -> Void = {
      $0.rank += delta
      $0.note += "!"
    }
    switch random.next(upTo: 24) {
    case 0, 1, 2:
      let item = random.item()
      let added = collection.add(item)
      let expected = model.entities[item.id] == nil
      model.add(item)
      return added == expected ? "add(\(item))" : "add(\(item)) returned \(added)"
    case 3:
      let items = random.items()
      collection.add(contentsOf: items)
      for item in items { model.add(item) }
      return "add(contentsOf: \(items))"
    case 4, 5, 6:
      let item = random.item()
      let replaced = collection.upsert(item)
      let expected = model.entities[item.id]
      model.upsert(item)
      return replaced == expected
        ? "upsert(\(item))" : "upsert(\(item)) returned \(replaced as Any)"
    case 7:
      let items = random.items()
      collection.upsert(contentsOf: items)
      for item in items { model.upsert(item) }
      return "upsert(contentsOf: \(items))"
    case 8, 9:
      let found = collection.update(id: id, bump) != nil
      let expected = model.entities[id] != nil
      model.update(id, bump)
      return found == expected
        ? "update(id: \(id)) by \(delta)" : "update(id: \(id)) found \(found)"
    case 10:
      let change = EntityChange<Item>.set(\.rank, to: delta + 4).set(\.note, to: "set")
      collection.update(id: id, applying: change)
      model.update(id) { change.apply(to: &$0) }
      return "update(id: \(id), applying: rank \(delta + 4))"
    case 11:
      let ids = random.ids()
      collection.update(ids: ids, bump)
      for id in ids { model.update(id, bump) }
      return "update(ids: \(ids)) by \(delta)"
    case 12:
      let changes = random.ids().map { ($0, EntityChange<Item>(bump)) }
      collection.update(contentsOf: changes)
      for (id, change) in changes { model.update(id) { change.apply(to: &$0) } }
      return "update(contentsOf: \(changes.map(\.0))) by \(delta)"
    case 13, 14, 15:
      let removed = collection.remove(id: id)
      let expected = model.entities[id]
      model.remove(id)
      return removed == expected
        ? "remove(id: \(id))" : "remove(id: \(id)) returned \(removed as Any)"
    case 16:
      let ids = random.ids()
      collection.remove(ids: ids)
      for id in ids { model.remove(id) }
      return "remove(ids: \(ids))"
    case 17:
      let rank = random.next(upTo: 10)
      collection.removeAll { $0.rank == rank }
      for (id, item) in model.entities where item.rank == rank { model.remove(id) }
      return "removeAll(where: rank == \(rank))"
    case 18:
      collection[id: id]?.rank += delta
      model.update(id) { $0.rank += delta }
      return "[id: \(id)]?.rank += \(delta)"
    case 19:
      if random.next(upTo: 2) == 0 {
        let item = Item(id: id, rank: random.next(upTo: 10))
        collection[id: id] = item
        model.upsert(item)
        return "[id: \(id)] = \(item)"
      }
      collection[id: id] = nil
      model.remove(id)
      return "[id: \(id)] = nil"
    case 20:
      // Through `_modify`: an inout access that removes the entity, or adds one where none was.
      let item = Item(id: id, rank: random.next(upTo: 10))
      let present = model.entities[id] != nil
      replace(&collection[id: id], with: present ? nil : item)
      if present { model.remove(id) } else { model.upsert(item) }
      return present ? "_modify [id: \(id)] to nil" : "_modify [id: \(id)] from nil to \(item)"
    case 21:
      let action = randomAction(&random)
      collection.apply(action)
      applyToModel(action, &model)
      return "apply(\(action))"
    case 22:
      if random.next(upTo: 8) == 0 {
        let items = random.items(ids: 40) + random.items(ids: 40)
        collection.setAll(items)
        model.removeAll()
        for item in items { model.add(item) }
        return "setAll(\(items))"
      }
      return "nothing"
    default:
      if random.next(upTo: 10) == 0 {
        collection.removeAll(keepingCapacity: random.next(upTo: 2) == 0)
        model.removeAll()
        return "removeAll()"
      }
      return "nothing"
    }
  }

  private func randomAction(_ random: inout SeededRandom) -> EntityAction<Int, Item> {
    let id = random.next(upTo: 40)
    switch random.next(upTo: 8) {
    case 0: return .add(random.item())
    case 1: return .addMany(random.items())
    case 2: return .upsert(random.item())
    case 3: return .upsertMany(random.items())
    case 4: return .update(id, .set(\.note, to: "action"))
    case 5: return .updateMany(random.ids().map { ($0, .set(\.rank, to: 5)) })
    case 6: return .remove(id)
    default: return .removeMany(random.ids())
    }
  }

  private func applyToModel(_ action: EntityAction<Int, Item>, _ model: inout Model) {
    switch action {
    case .add(let item): model.add(item)
    case .addMany(let items): for item in items { model.add(item) }
    case .upsert(let item): model.upsert(item)
    case .upsertMany(let items): for item in items { model.upsert(item) }
    case .update(let id, let change): model.update(id) { change.apply(to: &$0) }
    case .updateMany(let changes):
      for (id, change) in changes { model.update(id) { change.apply(to: &$0) } }
    case .remove(let id): model.remove(id)
    case .removeMany(let ids): for id in ids { model.remove(id) }
    case .removeAll: model.removeAll()
    case .setAll(let items):
      model.removeAll()
      for item in items { model.add(item) }
    }
  }

  /// What differs between the collection and the model, if anything. It allocates nothing, so
  /// that it stays cheap under the sanitizers.
  private func mismatch(_ collection: EntityCollection<Int, Item>, _ model: Model) -> String? {
    let ids = collection.ids
    if let expected = model.expectedOrder, ids != expected {
      return "ids \(ids), expected \(expected)"
    }
    guard ids.count == model.entities.count, collection.count == ids.count,
      collection.elements.count == ids.count
    else {
      return "\(ids.count) ids, \(collection.count) entities, expected \(model.entities.count)"
    }
    for (position, id) in ids.enumerated() {
      let expected = model.entities[id]
      guard collection[id: id] == expected, collection[position] == expected,
        collection.elements[position] == expected
      else {
        return "entity \(id): \(collection[id: id] as Any), expected \(expected as Any)"
      }
      guard collection.index(id: id) == position, collection.contains(id: id) else {
        return "index(id: \(id)) is \(collection.index(id: id) as Any), expected \(position)"
      }
      if model.mode == .ties, position > 0,
        collection[position].rank < collection[position - 1].rank
      {
        return "not sorted by rank at \(position): \(collection.map(\.rank))"
      }
    }
    for id in 0..<40 where model.entities[id] == nil {
      if collection.contains(id: id) || collection.index(id: id) != nil {
        return "entity \(id) was removed but is found"
      }
    }
    if collection.inFlight != nil { return "an entity is left in flight" }
    // Ids repeated in `ids` would share a slot, which the index check finds.
    return directoryMismatch(collection.directory)
  }

  /// Whether the index's slots and positions are each other's inverse.
  private func directoryMismatch(_ directory: EntityIndex<Int>) -> String? {
    for (position, id) in directory.ids.enumerated() {
      let slot = directory.slotAtPosition[position]
      guard directory.slots[id] == slot, directory.positionOfSlot[slot] == position else {
        return "the index is inconsistent at position \(position) (id \(id), slot \(slot))"
      }
    }
    let held = directory.positionOfSlot.reduce(0) { $1 >= 0 ? $0 + 1 : $0 }
    return held == directory.ids.count ? nil : "\(held) slots held for \(directory.ids.count) ids"
  }
}

/// Assigns through an inout access, which reaches a subscript's `_modify`.
private func replace(_ value: inout Item?, with newValue: Item?) {
  value = newValue
}
