extension JSONValue {
  /// The error for text that is not one JSON value, with the byte where reading stopped.
  package struct ParseError: Error, Equatable, CustomStringConvertible {
    /// The offset of the byte where the text stopped being JSON, from 0.
    package let offset: Int
    /// What was wrong there.
    package let reason: String

    package var description: String { "\(reason) at byte \(offset + 1)" }
  }

  /// The deepest nesting of arrays and objects ``parse(_:maximumDepth:)`` accepts by default.
  package static let defaultMaximumDepth = 512

  /// Reads one JSON value from UTF-8 bytes.
  ///
  /// Stricter than it needs to be for hostile text: invalid UTF-8, a control character in a
  /// string, or nesting deeper than `maximumDepth` is an error before anything deeper is read,
  /// so the work and the stack depth are bounded by the text's length and `maximumDepth`. A
  /// number without a fraction or an exponent that fits in 64 bits is an ``integer(_:)``.
  ///
  /// - Complexity: O(*n*) for *n* bytes.
  package static func parse<Bytes: Collection<UInt8>>(
    _ bytes: Bytes, maximumDepth: Int = defaultMaximumDepth
  ) throws(ParseError) -> JSONValue {
    let result: Result<JSONValue, ParseError>? = bytes.withContiguousStorageIfAvailable {
      parse(buffer: $0, maximumDepth: maximumDepth)
    }
    if let result { return try result.get() }
    let copy = Array(bytes)
    return try copy.withUnsafeBufferPointer { parse(buffer: $0, maximumDepth: maximumDepth) }.get()
  }

  private static func parse(
    buffer: UnsafeBufferPointer<UInt8>, maximumDepth: Int
  ) -> Result<JSONValue, ParseError> {
    var parser = JSONParser(bytes: buffer, maximumDepth: maximumDepth)
    do throws(ParseError) {
      let value = try parser.value(depth: 0)
      parser.skipWhitespace()
      guard parser.position == buffer.count else {
        throw ParseError(offset: parser.position, reason: "more text after the value")
      }
      return .success(value)
    } catch {
      return .failure(error)
    }
  }
}

/// A recursive-descent reader over a buffer of UTF-8 bytes.
private struct JSONParser {
  let bytes: UnsafeBufferPointer<UInt8>
  let maximumDepth: Int
  var position = 0

  init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
    self.bytes = bytes
    self.maximumDepth = maximumDepth
  }

  typealias ParseError = JSONValue.ParseError

  func error(_ reason: String) -> ParseError {
    ParseError(offset: position, reason: reason)
  }

  mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x0A, 0x0D, 0x09: position += 1
      default: return
      }
    }
  }

  mutating func value(depth: Int) throws(ParseError) -> JSONValue {
    skipWhitespace()
    guard position < bytes.count else { throw error("the text ends before a value") }
    switch bytes[position] {
    case UInt8(ascii: "{"): return try object(depth: depth + 1)
    case UInt8(ascii: "["): return try array(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
    default: throw error("not a JSON value")
    }
  }

  mutating func literal(_ text: StaticString, _ value: JSONValue) throws(ParseError) -> JSONValue {
    let count = text.utf8CodeUnitCount
    guard position + count <= bytes.count else { throw error("not a JSON value") }
    for offset in 0..<count where bytes[position + offset] != text.utf8Start[offset] {
      throw error("not a JSON value")
    }
    position += count
    return value
  }

  mutating func object(depth: Int) throws(ParseError) -> JSONValue {
    guard depth <= maximumDepth else {
      throw error("nested deeper than \(maximumDepth) levels")
    }
    position += 1
    var object: [String: JSONValue] = [:]
    skipWhitespace()
    if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
      position += 1
      return .object(object)
    }
    while true {
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
        throw error("an object key must be a string")
      }
      let key = try string()
      skipWhitespace()
      guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
        throw error("a colon must follow an object key")
      }
      position += 1
      object[key] = try value(depth: depth)
      skipWhitespace()
      guard position < bytes.count else { throw error("the text ends inside an object") }
      switch bytes[position] {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "}"):
        position += 1
        return .object(object)
      default: throw error("a comma or a brace must follow an object's value")
      }
    }
  }

  mutating func array(depth: Int) throws(ParseError) -> JSONValue {
    guard depth <= maximumDepth else {
      throw error("nested deeper than \(maximumDepth) levels")
    }
    position += 1
    var array: [JSONValue] = []
    skipWhitespace()
    if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
      position += 1
      return .array(array)
    }
    while true {
      array.append(try value(depth: depth))
      skipWhitespace()
      guard position < bytes.count else { throw error("the text ends inside an array") }
      switch bytes[position] {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "]"):
        position += 1
        return .array(array)
      default: throw error("a comma or a bracket must follow an array's element")
      }
    }
  }

  mutating func number() throws(ParseError) -> JSONValue {
    let start = position
    var isInteger = true
    if bytes[position] == UInt8(ascii: "-") { position += 1 }
    guard position < bytes.count, isDigit(bytes[position]) else { throw error("not a number") }
    if bytes[position] == UInt8(ascii: "0") {
      position += 1
    } else {
      while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }
    if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
      isInteger = false
      position += 1
      guard position < bytes.count, isDigit(bytes[position]) else { throw error("not a number") }
      while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }
    if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
      isInteger = false
      position += 1
      if position < bytes.count,
        bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
      {
        position += 1
      }
      guard position < bytes.count, isDigit(bytes[position]) else { throw error("not a number") }
      while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }
    let text = String(
      decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    if isInteger, let integer = Int64(text) { return .integer(integer) }
    guard let number = Double(text), number.isFinite else {
      throw ParseError(offset: start, reason: "a number out of range")
    }
    return .number(number)
  }

  func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }

  mutating func string() throws(ParseError) -> String {
    position += 1  // the opening quote
    let start = position
    // The common case: no escape, so the bytes are the string.
    while position < bytes.count {
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
        try validateUTF8(slice, from: start)
        position += 1
        return String(decoding: slice, as: UTF8.self)
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { throw error("a control character in a string") }
      position += 1
    }
    var scalars: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
    try validateUTF8(UnsafeBufferPointer(rebasing: bytes[start..<position]), from: start)
    while position < bytes.count {
      let byte = bytes[position]
      switch byte {
      case UInt8(ascii: "\""):
        position += 1
        return String(decoding: scalars, as: UTF8.self)
      case UInt8(ascii: "\\"):
        position += 1
        guard position < bytes.count else { throw error("the text ends inside a string") }
        let escaped = bytes[position]
        position += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
        case UInt8(ascii: "b"): scalars.append(0x08)
        case UInt8(ascii: "f"): scalars.append(0x0C)
        case UInt8(ascii: "n"): scalars.append(0x0A)
        case UInt8(ascii: "r"): scalars.append(0x0D)
        case UInt8(ascii: "t"): scalars.append(0x09)
        case UInt8(ascii: "u"):
          var value = try hexQuad()
          if (0xD800..<0xDC00).contains(value) {
            // A high surrogate: a low one must follow, as another \u escape.
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
              bytes[position + 1] == UInt8(ascii: "u")
            else { throw error("a lone surrogate in a string") }
            position += 2
            let low = try hexQuad()
            guard (0xDC00..<0xE000).contains(low) else {
              throw error("a lone surrogate in a string")
            }
            value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
          } else if (0xDC00..<0xE000).contains(value) {
            throw error("a lone surrogate in a string")
          }
          guard let scalar = Unicode.Scalar(value) else { throw error("an invalid escape") }
          scalars.append(contentsOf: String(Character(scalar)).utf8)
        default: throw error("an invalid escape in a string")
        }
      default:
        if byte < 0x20 { throw error("a control character in a string") }
        let runStart = position
        while position < bytes.count, bytes[position] != UInt8(ascii: "\""),
          bytes[position] != UInt8(ascii: "\\"), bytes[position] >= 0x20
        {
          position += 1
        }
        let run = UnsafeBufferPointer(rebasing: bytes[runStart..<position])
        try validateUTF8(run, from: runStart)
        scalars.append(contentsOf: run)
      }
    }
    throw error("the text ends inside a string")
  }

  mutating func hexQuad() throws(ParseError) -> UInt32 {
    guard position + 4 <= bytes.count else { throw error("an invalid \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[position]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("an invalid \\u escape")
      }
      value = value << 4 | UInt32(digit)
      position += 1
    }
    return value
  }

  /// Throws at the first byte of `slice` that is not part of well-formed UTF-8.
  func validateUTF8(_ slice: UnsafeBufferPointer<UInt8>, from offset: Int) throws(ParseError) {
    var index = 0
    while index < slice.count {
      let byte = slice[index]
      if byte < 0x80 {
        index += 1
        continue
      }
      let length: Int
      let minimum: UInt32
      var scalar: UInt32
      switch byte {
      case 0xC2...0xDF: (length, minimum, scalar) = (2, 0x80, UInt32(byte & 0x1F))
      case 0xE0...0xEF: (length, minimum, scalar) = (3, 0x800, UInt32(byte & 0x0F))
      case 0xF0...0xF4: (length, minimum, scalar) = (4, 0x10000, UInt32(byte & 0x07))
      default: throw ParseError(offset: offset + index, reason: "invalid UTF-8")
      }
      guard index + length <= slice.count else {
        throw ParseError(offset: offset + index, reason: "invalid UTF-8")
      }
      for next in 1..<length {
        let continuation = slice[index + next]
        guard continuation & 0xC0 == 0x80 else {
          throw ParseError(offset: offset + index, reason: "invalid UTF-8")
        }
        scalar = scalar << 6 | UInt32(continuation & 0x3F)
      }
      guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800..<0xE000).contains(scalar) else {
        throw ParseError(offset: offset + index, reason: "invalid UTF-8")
      }
      index += length
    }
  }
}
