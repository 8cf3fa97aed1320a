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

extension JSONValue {
  /// The value as compact JSON text, object keys sorted, as `JSONEncoder` writes with
  /// `.sortedKeys` and `.withoutEscapingSlashes`.
  ///
  /// With `scriptSafe`, strings also write `<`, `>`, `&`, U+2028 and U+2029 as `\u` escapes,
  /// so that the text can stand inside an HTML `<script>` element: outside strings JSON holds
  /// none of these characters.
  package func jsonText(scriptSafe: Bool = false) -> String {
    var bytes: [UInt8] = []
    write(to: &bytes, scriptSafe: scriptSafe)
    return String(decoding: bytes, as: UTF8.self)
  }

  package func write(to bytes: inout [UInt8], scriptSafe: Bool) {
    switch self {
    case .null: bytes.append(contentsOf: "null".utf8)
    case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
    case .integer(let value): Self.write(integer: value, to: &bytes)
    case .number(let value):
      // Swift's shortest round-trip form is valid JSON for finite numbers ("0.1", "1e-05").
      var text = value.description
      if text.hasSuffix(".0") { text.removeLast(2) }
      bytes.append(contentsOf: text.utf8)
    case .string(let value): Self.write(string: value, to: &bytes, scriptSafe: scriptSafe)
    case .array(let values):
      bytes.append(UInt8(ascii: "["))
      for index in values.indices {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        values[index].write(to: &bytes, scriptSafe: scriptSafe)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let object):
      bytes.append(UInt8(ascii: "{"))
      var isFirst = true
      for key in object.keys.sorted() {
        if !isFirst { bytes.append(UInt8(ascii: ",")) }
        isFirst = false
        Self.write(string: key, to: &bytes, scriptSafe: scriptSafe)
        bytes.append(UInt8(ascii: ":"))
        object[key]?.write(to: &bytes, scriptSafe: scriptSafe)
      }
      bytes.append(UInt8(ascii: "}"))
    }
  }

  private static func write(integer: Int64, to bytes: inout [UInt8]) {
    if integer < 0 { bytes.append(UInt8(ascii: "-")) }
    var magnitude = integer.magnitude
    let start = bytes.count
    repeat {  // the digits from the last, reversed below
      bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
      magnitude /= 10
    } while magnitude > 0
    bytes[start...].reverse()
  }

  private static func write(string: String, to bytes: inout [UInt8], scriptSafe: Bool) {
    bytes.append(UInt8(ascii: "\""))
    var string = string
    string.withUTF8 { utf8 in
      var index = 0
      var plain = 0  // the start of the bytes not yet copied, which need no escape
      func escape(_ value: UInt32) {
        bytes.append(contentsOf: "\\u".utf8)
        for shift in stride(from: 12, through: 0, by: -4) {
          let digit = UInt8((value >> UInt32(shift)) & 0xF)
          bytes.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
        }
      }
      while index < utf8.count {
        let byte = utf8[index]
        var length = 1
        let replacement: UInt32?
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): replacement = UInt32(byte) | 0x1_0000
        case UInt8(ascii: "\n"): replacement = UInt32(UInt8(ascii: "n")) | 0x1_0000
        case UInt8(ascii: "\r"): replacement = UInt32(UInt8(ascii: "r")) | 0x1_0000
        case UInt8(ascii: "\t"): replacement = UInt32(UInt8(ascii: "t")) | 0x1_0000
        case 0..<0x20: replacement = UInt32(byte)
        case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"):
          replacement = scriptSafe ? UInt32(byte) : nil
        // U+2028 and U+2029: E2 80 A8 and E2 80 A9 in UTF-8.
        case 0xE2
        where scriptSafe && index + 2 < utf8.count && utf8[index + 1] == 0x80
          && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9):
          replacement = utf8[index + 2] == 0xA8 ? 0x2028 : 0x2029
          length = 3
        default: replacement = nil
        }
        guard let replacement else {
          index += 1
          continue
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plain..<index]))
        if replacement & 0x1_0000 != 0 {
          // A two-character escape: a backslash and the character.
          bytes.append(UInt8(ascii: "\\"))
          bytes.append(UInt8(truncatingIfNeeded: replacement))
        } else {
          escape(replacement)
        }
        index += length
        plain = index
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plain..<utf8.count]))
    }
    bytes.append(UInt8(ascii: "\""))
  }
}
