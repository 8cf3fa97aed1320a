// The JSON of a collection is Redux's normalized shape: the ids in order, and the entities in an
// object keyed by id. A JSON diff of two states (the inspector's) then shows a changed entity as
// `entities.<id>.<property>`, where an array would show every later element as changed.

/// The two keys of a collection's JSON.
private enum CollectionCodingKey: String, CodingKey {
  case ids
  case entities
}

extension EntityCollection: Encodable where ID: Encodable, Element: Encodable {
  /// Encodes the collection as its ids in order and its entities keyed by id.
  ///
  /// ```json
  /// {"ids": [2, 1], "entities": {"1": {"id": 1, "title": "Buy milk"},
  ///                              "2": {"id": 2, "title": "Call Ann"}}}
  /// ```
  ///
  /// `ids` holds the ids as they encode (numbers for `Int` ids, strings for `String` and `UUID`
  /// ids). A key of `entities` is the string an id encodes as, or the decimal digits of an
  /// integer id: an `Int` id 42 is `"42"`, a `UUID` its `uuidString`, an enum with a `String` raw
  /// value its raw value. The order (``EntityOrder``) is not encoded.
  ///
  /// > Note: A key strategy of the encoder, such as `JSONEncoder`'s `convertToSnakeCase`, rewrites
  /// > the keys of `entities` too: an id with capital letters then no longer finds its entity
  /// > when decoded (decoding throws `keyNotFound`). Encode states with such ids without one.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: `EncodingError.invalidValue` for an id that does not encode as one string or
  ///   integer, and the errors of the entities' encoding.
  /// - Complexity: O(*n*), plus the entities' encoding.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CollectionCodingKey.self)
    try container.encode(directory.ids, forKey: .ids)
    var entities = container.nestedContainer(
      keyedBy: EntityCodingKey.self, forKey: .entities)
    for (id, element) in zip(directory.ids, storage) {
      let key = try entityKey(for: id, codingPath: entities.codingPath)
      try entities.encode(element, forKey: EntityCodingKey(stringValue: key))
    }
  }
}

extension EntityCollection: Decodable
where Element: Decodable & Identifiable, ID == Element.ID, ID: Codable {
  /// Decodes a collection of identifiable entities, in insertion order, from the JSON that
  /// ``encode(to:)`` writes.
  ///
  /// The entities are in the order of `ids`. Use ``init(from:order:)`` in a sorted state's
  /// `init(from:)`: the order is not in the JSON.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` if the JSON is not a collection's: see ``init(from:id:order:)``.
  /// - Complexity: O(*n*), plus the entities' decoding.
  public init(from decoder: any Decoder) throws {
    try self.init(from: decoder, id: { $0.id }, order: .insertion)
  }

  /// Decodes a collection of identifiable entities from the JSON that ``encode(to:)`` writes, and
  /// keeps it in the given order.
  ///
  /// A collection's JSON does not hold its order, so a state with a sorted collection gives it
  /// back when it decodes:
  ///
  /// ```swift
  /// struct FilmsState: Codable {
  ///   var films = EntityCollection<Int, Film>(order: .sorted(by: \.title))
  ///
  ///   init(from decoder: any Decoder) throws {
  ///     let container = try decoder.container(keyedBy: CodingKeys.self)
  ///     films = try EntityCollection(
  ///       from: container.superDecoder(forKey: .films), order: .sorted(by: \.title))
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - decoder: The decoder.
  ///   - order: The order to keep: a sort order sorts the decoded entities (stably, so `ids`
  ///     breaks ties).
  /// - Throws: `DecodingError` if the JSON is not a collection's: see ``init(from:id:order:)``.
  /// - Complexity: O(*n*) in insertion order, O(*n* log *n*) sorted, plus the entities' decoding.
  public init(from decoder: any Decoder, order: EntityOrder<Element>) throws {
    try self.init(from: decoder, id: { $0.id }, order: order)
  }
}

extension EntityCollection where ID: Codable, Element: Decodable {
  /// Decodes a collection from the JSON that ``encode(to:)`` writes, identifying the entities by
  /// `id` and keeping them in the given order.
  ///
  /// `Decodable` needs the id function, which JSON cannot hold, so a collection of entities that
  /// are not `Identifiable` decodes through this initializer, in its state's `init(from:)`.
  ///
  /// Decoding checks that the JSON describes a collection, and throws a `DecodingError` whose
  /// coding path points at the first place that does not:
  /// - `keyNotFound` when `ids` or `entities` is missing, or when an id of `ids` has no entity;
  /// - `dataCorrupted` when an id repeats in `ids`, when `entities` has an entity whose key is not
  ///   in `ids`, or when an entity's own id is not the id it is keyed by;
  /// - `typeMismatch` and the others the decoder throws when a value has the wrong type.
  ///
  /// - Parameters:
  ///   - decoder: The decoder.
  ///   - id: Reads an element's id.
  ///   - order: The order to keep: a sort order sorts the decoded entities (stably, so `ids`
  ///     breaks ties).
  /// - Throws: `DecodingError` as above.
  /// - Complexity: O(*n*) in insertion order, O(*n* log *n*) sorted, plus the entities' decoding.
  public init(
    from decoder: any Decoder, id: @escaping @Sendable (Element) -> ID,
    order: EntityOrder<Element> = .insertion
  ) throws {
    self.init(id: id, order: order)
    let container = try decoder.container(keyedBy: CollectionCodingKey.self)
    let ids = try container.decode([ID].self, forKey: .ids)
    let entities = try container.nestedContainer(keyedBy: EntityCodingKey.self, forKey: .entities)
    let idsPath = container.codingPath + [CollectionCodingKey.ids]
    reserveCapacity(ids.count)
    for (offset, id) in ids.enumerated() {
      if let first = directory.position(of: id) {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: idsPath + [EntityCodingKey(intValue: offset)],
            debugDescription: """
              ids[\(offset)] repeats the id \(String(reflecting: id)) of ids[\(first)]; \
              each id appears once.
              """))
      }
      let key = EntityCodingKey(stringValue: try entityKey(for: id, codingPath: idsPath))
      guard entities.contains(key) else {
        throw DecodingError.keyNotFound(
          key,
          DecodingError.Context(
            codingPath: entities.codingPath,
            debugDescription: """
              ids[\(offset)] is \(String(reflecting: id)), but entities has no "\(key.stringValue)".
              """))
      }
      let element = try entities.decode(Element.self, forKey: key)
      let elementID = identify(element)
      guard elementID == id else {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: entities.codingPath + [key],
            debugDescription: """
              The entity under "\(key.stringValue)" has the id \(String(reflecting: elementID)), \
              not \(String(reflecting: id)).
              """))
      }
      insertNew(element, id: id, at: storage.count)
    }
    if entities.allKeys.count != ids.count {
      let listed = Set(
        try ids.map { try entityKey(for: $0, codingPath: idsPath) })
      if let extra = entities.allKeys.first(where: { !listed.contains($0.stringValue) }) {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: entities.codingPath + [extra],
            debugDescription: """
              entities has "\(extra.stringValue)", which ids does not list; every entity's id \
              is in ids.
              """))
      }
    }
    restoreSortOrder()
  }
}
