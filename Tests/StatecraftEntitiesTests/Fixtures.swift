import StatecraftEntities
import StatecraftTestSupport

/// An entity whose rank is its sort key; ranks repeat, so a sort by rank alone has ties.
struct Item: Identifiable, Equatable, Codable, Sendable {
  let id: Int
  var rank: Int
  var note: String = ""
}

/// A total order: by rank, then by id.
let byRankThenID: EntityOrder<Item> = .sorted { ($0.rank, $0.id) < ($1.rank, $1.id) }

/// An order with ties: by rank only.
let byRank: EntityOrder<Item> = .sorted(by: \.rank)

extension SeededRandom {
  mutating func item(ids: Int = 40) -> Item {
    Item(id: next(upTo: ids), rank: next(upTo: 10), note: String(next(upTo: 1_000)))
  }

  mutating func items(ids: Int = 40) -> [Item] {
    (0..<next(upTo: 9)).map { _ in item(ids: ids) }
  }

  mutating func ids(upTo bound: Int = 40) -> [Int] {
    (0..<next(upTo: 9)).map { _ in next(upTo: bound) }
  }
}
