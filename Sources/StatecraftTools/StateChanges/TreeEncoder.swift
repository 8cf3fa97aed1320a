// The `Encoder` and its containers that a value writes itself to, each passing what it is given
// to a `NodeBuilder`.

/// The `Encoder` a value writes itself to.
struct TreeEncoder: Encoder {
  let builder: NodeBuilder

  var codingPath: [any CodingKey] { builder.path.map(PathKey.init) }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    builder.startObject()
    return KeyedEncodingContainer(KeyedContainer<Key>(builder: builder))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    builder.startArray()
    return UnkeyedContainer(builder: builder)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleValueContainer(builder: builder)
  }
}

private struct PathKey: CodingKey {
  let stringValue: String
  let intValue: Int?

  init(_ component: JSONPathComponent) {
    switch component {
    case .key(let key):
      stringValue = key
      intValue = nil
    case .index(let index):
      stringValue = String(index)
      intValue = index
    }
  }

  init?(stringValue: String) {
    self.stringValue = stringValue
    intValue = nil
  }

  init?(intValue: Int) {
    stringValue = String(intValue)
    self.intValue = intValue
  }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let builder: NodeBuilder

  var codingPath: [any CodingKey] { builder.path.map(PathKey.init) }

  mutating func encodeNil(forKey key: Key) throws {
    try encode(JSONNull(), forKey: key)
  }

  mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
    builder.setObjectChild(
      try builder.child(value, at: .key(key.stringValue)), forKey: key.stringValue)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let nested = builder.nested(at: .key(key.stringValue))
    nested.startObject()
    return KeyedEncodingContainer(KeyedContainer<NestedKey>(builder: nested))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let nested = builder.nested(at: .key(key.stringValue))
    nested.startArray()
    return UnkeyedContainer(builder: nested)
  }

  mutating func superEncoder() -> any Encoder {
    TreeEncoder(builder: builder.nested(at: .key("super")))
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    TreeEncoder(builder: builder.nested(at: .key(key.stringValue)))
  }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
  let builder: NodeBuilder

  var codingPath: [any CodingKey] { builder.path.map(PathKey.init) }
  var count: Int { builder.arrayCount }

  mutating func encodeNil() throws {
    try encode(JSONNull())
  }

  mutating func encode<Value: Encodable>(_ value: Value) throws {
    builder.appendArrayChild(try builder.child(value, at: .index(count)))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    let nested = builder.nested(at: .index(count))
    nested.startObject()
    return KeyedEncodingContainer(KeyedContainer<NestedKey>(builder: nested))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let nested = builder.nested(at: .index(count))
    nested.startArray()
    return UnkeyedContainer(builder: nested)
  }

  mutating func superEncoder() -> any Encoder {
    TreeEncoder(builder: builder.nested(at: .index(count)))
  }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
  let builder: NodeBuilder

  var codingPath: [any CodingKey] { builder.path.map(PathKey.init) }

  mutating func encodeNil() throws { builder.setLeaf(.null) }
  mutating func encode(_ value: Bool) throws { builder.setLeaf(.bool(value)) }
  mutating func encode(_ value: String) throws { builder.setLeaf(.string(value)) }
  mutating func encode(_ value: Double) throws { builder.setLeaf(try EncodedNode.number(value)) }
  mutating func encode(_ value: Float) throws {
    // Through its shortest text, as JSONEncoder writes it: 0.1 rather than 0.10000000149.
    builder.setLeaf(try EncodedNode.number(Double("\(value)") ?? Double(value)))
  }
  mutating func encode(_ value: Int) throws { integer(value) }
  mutating func encode(_ value: Int8) throws { integer(value) }
  mutating func encode(_ value: Int16) throws { integer(value) }
  mutating func encode(_ value: Int32) throws { integer(value) }
  mutating func encode(_ value: Int64) throws { integer(value) }
  mutating func encode(_ value: UInt) throws { integer(value) }
  mutating func encode(_ value: UInt8) throws { integer(value) }
  mutating func encode(_ value: UInt16) throws { integer(value) }
  mutating func encode(_ value: UInt32) throws { integer(value) }
  mutating func encode(_ value: UInt64) throws { integer(value) }

  mutating func encode<Value: Encodable>(_ value: Value) throws {
    // The same place as the value that wrote this container, and its previous node.
    builder.setSingle(
      try EncodedNode.encode(
        value, previous: builder.previous, at: Place(parent: builder.path, component: nil),
        log: builder.log, types: builder.types))
  }

  private func integer<Value: BinaryInteger>(_ value: Value) {
    builder.setLeaf(Int64(exactly: value).map(JSONValue.integer) ?? .number(Double(value)))
  }
}

/// What `encodeNil` writes: a value, so that it goes through the same path as any other.
private struct JSONNull: Encodable, Equatable {
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encodeNil()
  }
}
