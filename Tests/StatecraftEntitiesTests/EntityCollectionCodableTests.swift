import Foundation
import StatecraftEntities
import StatecraftTestSupport
import Testing

private struct Film: Identifiable, Equatable, Codable, Sendable {
  let id: UUID
  var title: String
}

private enum Color: String, Codable, Sendable {
  case red, green
}

private struct Swatch: Identifiable, Equatable, Codable, Sendable {
  let id: Color
  var hex: String
}

/// A wrapper id that encodes as the integer it wraps, as `Tagged` does.
private struct TodoID: Hashable, Codable, Sendable {
  let raw: Int

  init(_ raw: Int) { self.raw = raw }
  init(from decoder: any Decoder) throws {
    raw = try decoder.singleValueContainer().decode(Int.self)
  }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(raw)
  }
}

private struct Todo: Identifiable, Equatable, Codable, Sendable {
  let id: TodoID
  var title: String
}

/// An id that encodes as an object, which cannot key one.
private struct PairID: Hashable, Codable, Sendable {
  let a: Int
  let b: Int
}

private struct Edge: Identifiable, Equatable, Codable, Sendable {
  let id: PairID
}

/// An entity that is not `Identifiable`: its id is its email.
private struct User: Equatable, Codable, Sendable {
  let email: String
  var name: String
}

private func encode(_ value: some Encodable) throws -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys]
  return String(decoding: try encoder.encode(value), as: UTF8.self)
}

private func decode<Value: Decodable>(_ type: Value.Type, _ json: String) throws -> Value {
  try JSONDecoder().decode(type, from: Data(json.utf8))
}

/// The JSON is Redux's normalized shape; decoding checks it and throws, never traps.
@Suite(.catchesHangs) struct EntityCollectionCodableTests {
  @Test func intIDsEncodeAsNumbersInIDsAndAsDigitKeysOfEntities() throws {
    let items: EntityCollection<Int, Item> = [Item(id: 2, rank: 1), Item(id: 10, rank: 0)]
    #expect(
      try encode(items)
        == #"{"entities":{"10":{"id":10,"note":"","rank":0},"2":{"id":2,"note":"","rank":1}},"ids":[2,10]}"#
    )
    #expect(try decode(EntityCollection<Int, Item>.self, try encode(items)) == items)
  }

  @Test func uuidEnumAndWrapperIDsKeyEntitiesByTheStringTheyEncodeAs() throws {
    let uuid = UUID()
    let films: EntityCollection<UUID, Film> = [Film(id: uuid, title: "A New Hope")]
    #expect(try encode(films).contains(#""entities":{"\#(uuid.uuidString)":"#))
    #expect(try decode(EntityCollection<UUID, Film>.self, try encode(films)) == films)

    let swatches: EntityCollection<Color, Swatch> = [Swatch(id: .green, hex: "0f0")]
    #expect(
      try encode(swatches) == #"{"entities":{"green":{"hex":"0f0","id":"green"}},"ids":["green"]}"#)
    #expect(try decode(EntityCollection<Color, Swatch>.self, try encode(swatches)) == swatches)

    let todos: EntityCollection<TodoID, Todo> = [Todo(id: TodoID(7), title: "Buy milk")]
    #expect(try encode(todos) == #"{"entities":{"7":{"id":7,"title":"Buy milk"}},"ids":[7]}"#)
    #expect(try decode(EntityCollection<TodoID, Todo>.self, try encode(todos)) == todos)
  }

  @Test func anIDThatEncodesAsAnObjectFailsToEncodeWithAnError() throws {
    let edges: EntityCollection<PairID, Edge> = [Edge(id: PairID(a: 1, b: 2))]
    #expect {
      try encode(edges)
    } throws: { error in
      guard case EncodingError.invalidValue(_, let context) = error else { return false }
      return context.debugDescription.contains("single string or integer")
    }
  }

  @Test func aSortedCollectionDecodesInItsOrderWhenGivenIt() throws {
    let json =
      #"{"ids":[3,1,2],"entities":{"1":{"id":1,"rank":5,"note":""},"2":{"id":2,"rank":1,"note":""},"3":{"id":3,"rank":9,"note":""}}}"#
    let decoder = JSONDecoder()
    let plain = try decoder.decode(EntityCollection<Int, Item>.self, from: Data(json.utf8))
    #expect(plain.ids == [3, 1, 2])
    #expect(!plain.order.isSorted)

    struct Sorted: Decodable {
      var items: EntityCollection<Int, Item>
      init(from decoder: any Decoder) throws {
        items = try EntityCollection(from: decoder, order: .sorted(by: \.rank))
      }
    }
    var sorted = try decoder.decode(Sorted.self, from: Data(json.utf8)).items
    #expect(sorted.ids == [2, 1, 3])
    sorted.add(Item(id: 4, rank: 6))
    #expect(sorted.ids == [2, 1, 4, 3])
  }

  @Test func entitiesThatAreNotIdentifiableDecodeWithTheirIDFunction() throws {
    let users = EntityCollection(
      [User(email: "ann@example.com", name: "Ann")], id: { $0.email })
    let json = try encode(users)
    #expect(
      json
        == #"{"entities":{"ann@example.com":{"email":"ann@example.com","name":"Ann"}},"ids":["ann@example.com"]}"#
    )

    struct State: Decodable {
      var users: EntityCollection<String, User>
      init(from decoder: any Decoder) throws {
        users = try EntityCollection(from: decoder, id: { $0.email })
      }
    }
    #expect(try decode(State.self, json).users == users)
  }

  @Test func aRepeatedIDIsACorruptedDataErrorAtItsIndex() {
    let json =
      #"{"ids":[1,2,1],"entities":{"1":{"id":1,"rank":0,"note":""},"2":{"id":2,"rank":0,"note":""}}}"#
    expectDecodingError(json) { error in
      guard case .dataCorrupted(let context) = error else { return false }
      return context.codingPath.map(\.stringValue) == ["ids", "2"]
        && context.debugDescription.contains("repeats the id 1 of ids[0]")
    }
  }

  @Test func anIDWithoutAnEntityIsAMissingKey() {
    let json = #"{"ids":[1,2],"entities":{"1":{"id":1,"rank":0,"note":""}}}"#
    expectDecodingError(json) { error in
      guard case .keyNotFound(let key, let context) = error else { return false }
      return key.stringValue == "2" && context.codingPath.map(\.stringValue) == ["entities"]
    }
  }

  @Test func anEntityWhoseKeyIsNotInIDsIsCorruptedData() {
    let json =
      #"{"ids":[1],"entities":{"1":{"id":1,"rank":0,"note":""},"9":{"id":9,"rank":0,"note":""}}}"#
    expectDecodingError(json) { error in
      guard case .dataCorrupted(let context) = error else { return false }
      return context.codingPath.map(\.stringValue) == ["entities", "9"]
        && context.debugDescription.contains("which ids does not list")
    }
  }

  @Test func anEntityUnderAnotherIDIsCorruptedData() {
    let json = #"{"ids":[1],"entities":{"1":{"id":2,"rank":0,"note":""}}}"#
    expectDecodingError(json) { error in
      guard case .dataCorrupted(let context) = error else { return false }
      return context.codingPath.map(\.stringValue) == ["entities", "1"]
        && context.debugDescription.contains("has the id 2, not 1")
    }
  }

  @Test func valuesOfTheWrongTypeAreTypeMismatches() {
    let wrong = [
      #"{"ids":"1","entities":{}}"#,
      #"{"ids":[1],"entities":[{"id":1,"rank":0,"note":""}]}"#,
      #"{"ids":[1],"entities":{"1":{"id":1,"rank":"high"}}}"#,
      #"{"ids":["one"],"entities":{"one":{"id":1,"rank":0,"note":""}}}"#,
      #"[1, 2]"#,
    ]
    for json in wrong {
      expectDecodingError(json) { error in
        if case .typeMismatch = error { return true }
        return false
      }
    }
  }

  @Test func missingPartsAreMissingKeys() {
    for json in [#"{"entities":{}}"#, #"{"ids":[]}"#] {
      expectDecodingError(json) { error in
        if case .keyNotFound = error { return true }
        return false
      }
    }
    #expect(throws: DecodingError.self) { try decode(EntityCollection<Int, Item>.self, "{") }
  }

  @Test func aSnakeCaseKeyStrategyLosesCapitalisedIDsWithAnErrorNotATrap() throws {
    struct Named: Identifiable, Equatable, Codable, Sendable {
      let id: String
    }
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    // "NewHope" is written "new_hope" and read back "newHope": not an id of the collection.
    let named: EntityCollection<String, Named> = [Named(id: "NewHope")]
    #expect {
      try decoder.decode(EntityCollection<String, Named>.self, from: encoder.encode(named))
    } throws: { error in
      guard case DecodingError.keyNotFound = error else { return false }
      return true
    }
    // A UUID's key comes back in another case, which UUID's own decoding may or may not accept,
    // depending on where the strategy put underscores: either way, an error or the same
    // collection, never a trap (fixed UUIDs, so that the test does the same each run).
    for uuid in ["88B73C7B-D529-4525-B5C9-C09587B4384F", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"] {
      guard let id = UUID(uuidString: uuid) else { continue }
      let films: EntityCollection<UUID, Film> = [Film(id: id, title: "A New Hope")]
      if let decoded = try? decoder.decode(
        EntityCollection<UUID, Film>.self, from: encoder.encode(films))
      {
        #expect(decoded == films)
      }
    }
    let items: EntityCollection<Int, Item> = [Item(id: 1, rank: 0)]
    #expect(
      try decoder.decode(EntityCollection<Int, Item>.self, from: encoder.encode(items)) == items)
  }

  @Test func anEmptyCollectionRoundTrips() throws {
    let empty = EntityCollection<Int, Item>()
    #expect(try encode(empty) == #"{"entities":{},"ids":[]}"#)
    #expect(try decode(EntityCollection<Int, Item>.self, try encode(empty)).isEmpty)
  }

  private func expectDecodingError(
    _ json: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ matches: (DecodingError) -> Bool
  ) {
    do {
      let decoded = try decode(EntityCollection<Int, Item>.self, json)
      Issue.record("\(json) decoded as \(decoded)", sourceLocation: sourceLocation)
    } catch let error as DecodingError {
      #expect(matches(error), "\(json): \(error)", sourceLocation: sourceLocation)
    } catch {
      Issue.record("\(json): \(error) is not a DecodingError", sourceLocation: sourceLocation)
    }
  }
}
