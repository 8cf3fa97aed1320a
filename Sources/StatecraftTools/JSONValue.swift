/// A JSON value, for migrations of persisted state from one schema version to the next.
///
/// ```swift
/// // Version 1 stored `name`; version 2 splits it.
/// let migrations: [Int: PersistenceMigration] = [
///   1: { json in
///     var object = json.objectValue ?? [:]
///     object["firstName"] = object["name"]
///     object["name"] = nil
///     return .object(object)
///   }
/// ]
/// ```
public enum JSONValue: Codable, Sendable, Equatable {
  case null
  case bool(Bool)
  /// A number without a fraction that fits in 64 bits, kept exact.
  case integer(Int64)
  /// Any other number.
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  /// The dictionary, if this is an object.
  /// - Complexity: O(1).
  public var objectValue: [String: JSONValue]? {
    if case .object(let object) = self { object } else { nil }
  }

  /// Decodes any JSON value.
  ///
  /// - Parameter decoder: The decoder to read from.
  /// - Throws: `DecodingError` if the data is not JSON.
  /// - Complexity: O(*n*) for a value of *n* nodes, nested ones included.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int64.self) {
      self = .integer(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  /// Encodes the value as JSON.
  ///
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: `EncodingError` if the encoder fails.
  /// - Complexity: O(*n*) for a value of *n* nodes, nested ones included.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .integer(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }
}
