/// A key of the `entities` object of a collection's JSON, or an index into its `ids`.
struct EntityCodingKey: CodingKey {
  let stringValue: String
  let intValue: Int?

  init(stringValue: String) {
    self.stringValue = stringValue
    self.intValue = nil
  }

  init(intValue: Int) {
    self.stringValue = String(intValue)
    self.intValue = intValue
  }
}

/// The string that keys an entity with id `id` in JSON: the single value the id encodes as, a
/// string or an integer's decimal digits.
///
/// Strings and the standard integer types take a direct path; other ids (a `UUID`, an enum with
/// a raw value, a wrapper such as `Tagged`) are encoded with ``EntityKeyEncoder``.
///
/// - Throws: `EncodingError.invalidValue` if the id encodes as something else (a number with a
///   fraction, a Boolean, several values).
func entityKey<ID: Encodable>(for id: ID, codingPath: [any CodingKey]) throws -> String {
  switch id {
  case let string as String: return string
  case let integer as Int: return String(integer)
  case let integer as Int64: return String(integer)
  case let integer as UInt64: return String(integer)
  case let integer as Int32: return String(integer)
  case let integer as UInt32: return String(integer)
  case let integer as UInt: return String(integer)
  default: break
  }
  let encoder = EntityKeyEncoder(codingPath: codingPath)
  do {
    try id.encode(to: encoder)
  } catch let error as EncodingError {
    throw error
  } catch {
    encoder.result = nil
  }
  guard let key = encoder.result, encoder.values == 1 else {
    throw EncodingError.invalidValue(
      id,
      EncodingError.Context(
        codingPath: codingPath,
        debugDescription: """
          An entity's id keys its entity in the JSON object `entities`, so it must encode as one \
          string or integer; \(ID.self) \(String(reflecting: id)) does not. Use an id type that \
          encodes as a single string or integer (String, Int, UUID, an enum with a raw value).
          """))
  }
  return key
}

/// An encoder that records the one string or integer a value encodes as.
final class EntityKeyEncoder: Encoder {
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  /// The value's string form, once it encoded one string or integer.
  var result: String?
  /// How many values the value encoded; a key is one.
  var values = 0

  init(codingPath: [any CodingKey]) {
    self.codingPath = codingPath
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    values += 2
    return KeyedEncodingContainer(RefusingKeyedContainer<Key>(codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    values += 2
    return RefusingUnkeyedContainer(codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleValueKeyContainer(encoder: self)
  }

  func record(_ key: String?) {
    values += 1
    result = key
  }
}

/// The single value of an id: strings and integers become keys, anything else is refused.
private struct SingleValueKeyContainer: SingleValueEncodingContainer {
  let encoder: EntityKeyEncoder
  var codingPath: [any CodingKey] { encoder.codingPath }

  mutating func encodeNil() throws { encoder.record(nil) }
  mutating func encode(_ value: Bool) throws { encoder.record(nil) }
  mutating func encode(_ value: String) throws { encoder.record(value) }
  mutating func encode(_ value: Double) throws { encoder.record(nil) }
  mutating func encode(_ value: Float) throws { encoder.record(nil) }
  mutating func encode(_ value: Int) throws { encoder.record(String(value)) }
  mutating func encode(_ value: Int8) throws { encoder.record(String(value)) }
  mutating func encode(_ value: Int16) throws { encoder.record(String(value)) }
  mutating func encode(_ value: Int32) throws { encoder.record(String(value)) }
  mutating func encode(_ value: Int64) throws { encoder.record(String(value)) }
  mutating func encode(_ value: UInt) throws { encoder.record(String(value)) }
  mutating func encode(_ value: UInt8) throws { encoder.record(String(value)) }
  mutating func encode(_ value: UInt16) throws { encoder.record(String(value)) }
  mutating func encode(_ value: UInt32) throws { encoder.record(String(value)) }
  mutating func encode(_ value: UInt64) throws { encoder.record(String(value)) }
  mutating func encode<Value: Encodable>(_ value: Value) throws {
    // A wrapper encodes its wrapped value in its own single-value container.
    try value.encode(to: encoder)
  }
}

/// The error a refusing container throws: the id is not a single value.
private struct NotASingleValue: Error {}

/// A keyed container for an id that encodes as an object: every write fails.
private struct RefusingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let codingPath: [any CodingKey]

  mutating func encodeNil(forKey key: Key) throws { throw NotASingleValue() }
  mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
    throw NotASingleValue()
  }
  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(RefusingKeyedContainer<NestedKey>(codingPath: codingPath))
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    RefusingUnkeyedContainer(codingPath: codingPath)
  }
  mutating func superEncoder() -> any Encoder { EntityKeyEncoder(codingPath: codingPath) }
  mutating func superEncoder(forKey key: Key) -> any Encoder {
    EntityKeyEncoder(codingPath: codingPath)
  }
}

/// An unkeyed container for an id that encodes as an array: every write fails.
private struct RefusingUnkeyedContainer: UnkeyedEncodingContainer {
  let codingPath: [any CodingKey]
  var count: Int { 0 }

  mutating func encodeNil() throws { throw NotASingleValue() }
  mutating func encode<Value: Encodable>(_ value: Value) throws { throw NotASingleValue() }
  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(RefusingKeyedContainer<NestedKey>(codingPath: codingPath))
  }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    RefusingUnkeyedContainer(codingPath: codingPath)
  }
  mutating func superEncoder() -> any Encoder { EntityKeyEncoder(codingPath: codingPath) }
}
