import StatecraftEntities
import StatecraftTestSupport
import Testing

/// A reference whose uniqueness shows whether the entity holding it was copied.
private final class Box: Sendable {}

private struct Holder: Identifiable, Sendable {
  let id: Int
  var box = Box()
  var count = 0

  /// Whether this entity is the only holder of its box: no copy of it exists.
  mutating func isUnique() -> Bool {
    count += 1
    return isKnownUniquelyReferenced(&box)
  }
}

@Suite(.catchesHangs) struct EntityCollectionTests {
  @Test func itIteratesAndIndexesAsAnArrayInInsertionOrder() {
    var items: EntityCollection<Int, Item> = [Item(id: 3, rank: 0), Item(id: 1, rank: 0)]
    items.add(Item(id: 2, rank: 0))
    #expect(items.map(\.id) == [3, 1, 2])
    #expect(items.ids == [3, 1, 2])
    #expect(items[1].id == 1)
    #expect(Array(items.reversed()).map(\.id) == [2, 1, 3])
    #expect(items.index(id: 2) == 2)
    #expect(items.firstIndex { $0.id == 1 } == 1)
    #expect(items[1...].map(\.id) == [1, 2])
  }

  @Test func addKeepsTheFirstAndUpsertReplacesInPlace() {
    var items: EntityCollection<Int, Item> = [Item(id: 1, rank: 0), Item(id: 2, rank: 0)]
    let added = items.add(Item(id: 1, rank: 9))
    #expect(!added)
    #expect(items[id: 1]?.rank == 0)
    let replaced = items.upsert(Item(id: 1, rank: 9))
    #expect(replaced == Item(id: 1, rank: 0))
    #expect(items.ids == [1, 2])
    #expect(items[id: 1]?.rank == 9)
    let inserted = items.upsert(Item(id: 5, rank: 1))
    #expect(inserted == nil)
    #expect(items.ids == [1, 2, 5])
  }

  @Test func aSortedCollectionInsertsInPlaceAndMovesAChangedEntity() {
    var items = EntityCollection<Int, Item>(order: .sorted(by: \.rank))
    items.add(contentsOf: [Item(id: 1, rank: 5), Item(id: 2, rank: 1), Item(id: 3, rank: 5)])
    #expect(items.ids == [2, 1, 3])
    items.add(Item(id: 4, rank: 5))  // after the entities equal to it
    #expect(items.ids == [2, 1, 3, 4])
    items[id: 2]?.rank = 7
    #expect(items.ids == [1, 3, 4, 2])
    items.update(id: 4) { $0.rank = 0 }
    #expect(items.ids == [4, 1, 3, 2])
  }

  @Test func changingAnEntityInPlaceDoesNotCopyIt() {
    var holders = EntityCollection<Int, Holder>([Holder(id: 1), Holder(id: 2)])
    let subscriptUnique = holders[id: 1]?.isUnique()
    let updateUnique = holders.update(id: 2) { $0.isUnique() }
    #expect(subscriptUnique == true)
    #expect(updateUnique == true)
    #expect(holders[id: 1]?.count == 1)
    #expect(holders[id: 2]?.count == 1)
    #expect(holders.ids == [1, 2])
  }

  @Test func aThrowingChangeThroughTheSubscriptKeepsTheEntityInPlace() {
    struct Refused: Error {}
    func renameThenFail(_ item: inout Item?) throws {
      item?.note = "renamed"
      throw Refused()
    }
    var items = EntityCollection<Int, Item>(
      [Item(id: 1, rank: 1), Item(id: 2, rank: 2), Item(id: 3, rank: 3)], order: .sorted(by: \.rank)
    )
    #expect(throws: Refused.self) { try renameThenFail(&items[id: 1]) }
    #expect(items.ids == [1, 2, 3])
    #expect(items[id: 1]?.note == "renamed")
    #expect(items.map(\.id) == [1, 2, 3])
  }

  @Test func equalityComparesIDsAndEntitiesInOrderNotTheOrderRule() {
    let a: EntityCollection<Int, Item> = [Item(id: 1, rank: 2), Item(id: 2, rank: 1)]
    var b = EntityCollection<Int, Item>(order: .sorted(by: \.rank))
    b.add(contentsOf: [Item(id: 2, rank: 1), Item(id: 1, rank: 2)])
    let c: EntityCollection<Int, Item> = [Item(id: 2, rank: 1), Item(id: 1, rank: 2)]
    #expect(a != b)
    #expect(b == c)
    var d = c
    #expect(d == c)
    d[id: 1]?.note = "changed"
    #expect(d != c)
    d[id: 1]?.note = ""
    #expect(d == c)
  }

  @Test func dumpShowsEachEntityUnderItsID() {
    let items: EntityCollection<Int, Item> = [Item(id: 7, rank: 1), Item(id: 3, rank: 2)]
    var text = ""
    dump(items, to: &text)
    let lines = text.split(separator: "\n").map { String($0.drop { $0 == " " }) }
    #expect(lines.first == "▿ 2 key/value pairs")
    #expect(lines.contains { $0.hasPrefix("▿ 7: ") && $0.hasSuffix("Item") })
    #expect(lines.contains { $0.hasPrefix("▿ 3: ") })
    #expect(
      lines.firstIndex { $0.hasPrefix("▿ 7: ") }! < lines.firstIndex { $0.hasPrefix("▿ 3: ") }!)
    #expect(items.description.hasPrefix("[7: "))
    #expect(items.debugDescription.hasPrefix("EntityCollection<Int, "))
    #expect(EntityCollection<Int, Item>().description == "[:]")
  }

  @Test func removeManyAndRemoveAllWhereKeepTheRestInOrder() {
    var items = EntityCollection<Int, Item>((0..<10).map { Item(id: $0, rank: $0 % 3) })
    items.remove(ids: [8, 2, 2, 42, 5])
    #expect(items.ids == [0, 1, 3, 4, 6, 7, 9])
    items.removeAll { $0.rank == 0 }
    #expect(items.ids == [1, 4, 7])
    let removed = items.remove(id: 4)
    let removedAgain = items.remove(id: 4)
    #expect(removed?.id == 4)
    #expect(removedAgain == nil)
    #expect(items.ids == [1, 7])
  }

  @Test func anIdentityFunctionIdentifiesEntitiesThatAreNotIdentifiable() {
    struct Tag: Equatable, Sendable {
      var name: String
      var uses: Int
    }
    var tags = EntityCollection<String, Tag>(id: \.name, order: .sorted { $0.uses > $1.uses })
    tags.add(contentsOf: [Tag(name: "swift", uses: 3), Tag(name: "redux", uses: 5)])
    tags.update(id: "swift", applying: .set(\.uses, to: 9))
    #expect(tags.ids == ["swift", "redux"])
  }

  @Test func changingAnIDInPlaceStopsWithAMessageThatNamesBothIDs() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      struct Tag: Equatable, Sendable {
        var name: String
      }
      var tags = EntityCollection<String, Tag>([Tag(name: "a")], id: \.name)
      tags[id: "a"]?.name = "b"
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("an entity with id b was assigned or changed under id a"))
  }

  @Test func aRepeatedIDInALiteralStopsWithAMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      limitThisChildProcess()
      let items: EntityCollection<Int, Item> = [Item(id: 1, rank: 0), Item(id: 1, rank: 1)]
      _ = items
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("the array literal repeats the id 1"))
  }
}
