import Foundation
import Statecraft
import StatecraftPrimitives

// What `StatePersistence` writes and reads: the coding it captured, the envelope around the saved
// value, and the checks on a file before it is decoded.

/// How one persistence selects, encodes and decodes, captured where the conformances are known:
/// for a main-actor `Saved`, in the main-actor initializer, and called on the main actor only.
struct PersistenceCoding<State, Saved>: Sendable {
  // Not `Sendable` functions: for a main-actor `Saved` they are made on the main actor, where a
  // non-Sendable function may drop its isolation (SE-0434), and called only there
  // (`checkIsolation`, and the writer's hop to the main queue).
  nonisolated(unsafe) let encode: (Saved) throws -> Data
  nonisolated(unsafe) let encodeSelection: (State) throws -> Data
  nonisolated(unsafe) let decode: (Data) throws -> (Int, StoredPayload<Saved>)
  nonisolated(unsafe) let decodePayload: (Data) throws -> Saved
  let onMainActor: Bool

  init(schemaVersion: Int, select: @escaping @Sendable (State) -> Saved)
  where Saved: Codable & Sendable {
    encode = { try Envelope.encode($0, version: schemaVersion) }
    encodeSelection = { try Envelope.encode(select($0), version: schemaVersion) }
    decode = { try StoredEnvelope<Saved>.decode($0, currentVersion: schemaVersion) }
    decodePayload = { try JSONDecoder().decode(Saved.self, from: $0) }
    onMainActor = false
  }

  @MainActor
  init(mainActorSchemaVersion schemaVersion: Int, select: @escaping @MainActor (State) -> Saved)
  where Saved: Codable {
    encode = { try Envelope.encode($0, version: schemaVersion) }
    encodeSelection = { try Envelope.encode(select($0), version: schemaVersion) }
    decode = { try StoredEnvelope<Saved>.decode($0, currentVersion: schemaVersion) }
    decodePayload = { try JSONDecoder().decode(Saved.self, from: $0) }
    onMainActor = true
  }

  /// Stops with a message if this coding is main-actor isolated and this is not the main queue.
  func checkIsolation(_ call: String) {
    guard onMainActor else { return }
    precondition(
      MainQueue.isCurrent,
      "Statecraft: StatePersistence.\(call) was called off the main actor, but the saved "
        + "type's Codable conformance is main-actor isolated. Call it from the main actor.")
  }
}

/// The file format: the schema version beside the payload.
struct Envelope<Payload: Encodable>: Encodable {
  let schemaVersion: Int
  let payload: Payload

  static func encode(_ payload: Payload, version: Int) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(Envelope(schemaVersion: version, payload: payload))
  }
}

/// The file format as read: the payload decoded as `Saved` when the file has the current
/// version, in the same parse, or kept as JSON for the migrations otherwise.
struct StoredEnvelope<Saved: Decodable>: Decodable {
  typealias Payload = StoredPayload<Saved>

  private static var currentVersionKey: CodingUserInfoKey {
    // swift-format-ignore: NeverForceUnwrap
    // Failable by its signature only: it accepts every raw value.
    CodingUserInfoKey(rawValue: "statecraft.currentSchemaVersion")!
  }

  private enum Keys: String, CodingKey {
    case schemaVersion, payload
  }

  let schemaVersion: Int
  let payload: Payload

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    schemaVersion = try container.decode(Int.self, forKey: .schemaVersion)
    guard schemaVersion == decoder.userInfo[Self.currentVersionKey] as? Int else {
      payload = .older(try container.decode(JSONValue.self, forKey: .payload))
      return
    }
    do {
      payload = .current(try container.decode(Saved.self, forKey: .payload))
    } catch {
      throw PayloadMismatch(underlying: error)
    }
  }

  static func decode(_ data: Data, currentVersion: Int) throws -> (Int, Payload) {
    let decoder = JSONDecoder()
    decoder.userInfo[currentVersionKey] = currentVersion
    let stored = try decoder.decode(Self.self, from: data)
    return (stored.schemaVersion, stored.payload)
  }
}

/// A payload as read: of the current version, or older JSON for the migrations.
enum StoredPayload<Saved> {
  case current(Saved)
  case older(JSONValue)
}

/// The payload is valid JSON of the current version but does not fit the saved type.
struct PayloadMismatch: Error {
  let underlying: any Error
}

/// Whether `data` opens more than `limit` arrays or objects inside one another, found by
/// scanning outside strings (the decoder would recurse before it could be told).
func nestingDepth(of data: Data, exceeds limit: Int) -> Bool {
  var depth = 0
  var inString = false
  var escaped = false
  for byte in data {
    if inString {
      if escaped {
        escaped = false
      } else if byte == UInt8(ascii: "\\") {
        escaped = true
      } else if byte == UInt8(ascii: "\"") {
        inString = false
      }
      continue
    }
    switch byte {
    case UInt8(ascii: "\""): inString = true
    case UInt8(ascii: "["), UInt8(ascii: "{"):
      depth += 1
      if depth > limit { return true }
    case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
    default: break
    }
  }
  return false
}
