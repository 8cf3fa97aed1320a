/// The error a recorded `rejected` lifecycle action carries when it is read back: the thrown
/// error's type and descriptions, since any error can be thrown and few are `Codable`.
///
/// A reducer that writes the error as text (`"\(error)"`, `String(reflecting: error)`) gets the
/// same text from it as from the error the thunk threw; one that casts the error to its own type
/// does not match it on replay.
///
/// ```swift
/// case .rejected(let error): state.error = "\(error)"  // the same text on replay
/// ```
public struct RecordedThunkError: Error, Equatable, Codable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The qualified type name of the error that was thrown, such as `"Shelf.ShelfError"`.
  /// - Complexity: O(1).
  public let typeName: String
  /// `String(describing:)` of the error that was thrown.
  /// - Complexity: O(1).
  public let description: String
  /// `String(reflecting:)` of the error that was thrown.
  /// - Complexity: O(1).
  public let debugDescription: String

  /// Creates the record of `error`; the record of a record is the record itself.
  ///
  /// - Parameter error: Any error.
  /// - Complexity: O(*n*) for descriptions of *n* characters.
  public init(_ error: any Error) {
    if let recorded = error as? RecordedThunkError {
      self = recorded
    } else {
      typeName = String(reflecting: type(of: error))
      description = String(describing: error)
      debugDescription = String(reflecting: error)
    }
  }

  private enum CodingKeys: String, CodingKey {
    case typeName = "type"
    case description, debugDescription
  }
}

extension ThunkLifecycle.Phase {
  /// The phase's name, as recordings and the inspector show it: `"pending"`, `"fulfilled"`,
  /// `"rejected"` or `"cancelled"`.
  package var name: String {
    switch self {
    case .pending: "pending"
    case .fulfilled: "fulfilled"
    case .rejected: "rejected"
    case .cancelled: "cancelled"
    }
  }
}

/// A lifecycle action encodes as one flat object, the form recordings hold:
///
/// ```json
/// {"name":"books/load","requestID":3,"phase":"pending"}
/// {"name":"books/load","requestID":3,"phase":"fulfilled","value":["Dune"]}
/// {"name":"books/load","requestID":4,"phase":"rejected",
///  "error":{"type":"Shelf.ShelfError","description":"offline","debugDescription":"Shelf.ShelfError.offline"}}
/// {"name":"books/load","requestID":5,"phase":"cancelled"}
/// ```
///
/// A `rejected` action decodes with a ``RecordedThunkError`` in place of the error thrown.
extension ThunkLifecycle: Codable where Value: Codable {
  /// Decodes a lifecycle action from the object its encoding writes.
  ///
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError` if a field is missing or the phase is not one of the four.
  /// - Complexity: The decoding of the value or error it holds.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: ThunkLifecycleCodingKeys.self)
    let name = try container.decode(String.self, forKey: .name)
    let requestID = try container.decode(UInt64.self, forKey: .requestID)
    let phase: Phase
    switch try container.decode(String.self, forKey: .phase) {
    case "pending": phase = .pending
    case "fulfilled": phase = .fulfilled(try container.decode(Value.self, forKey: .value))
    case "rejected":
      phase = .rejected(try container.decode(RecordedThunkError.self, forKey: .error))
    case "cancelled": phase = .cancelled
    case let other:
      throw DecodingError.dataCorruptedError(
        forKey: .phase, in: container,
        debugDescription: "\(other) is not a phase: pending, fulfilled, rejected or cancelled")
    }
    self.init(name: name, requestID: requestID, phase: phase)
  }

  /// Encodes the action as one flat object: its name, request id and phase, and the value or
  /// the error's record.
  ///
  /// - Parameter encoder: The encoder.
  /// - Throws: The value's encoding error.
  /// - Complexity: The encoding of the value or error it holds.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: ThunkLifecycleCodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encode(requestID, forKey: .requestID)
    try container.encode(phase.name, forKey: .phase)
    switch phase {
    case .fulfilled(let value): try container.encode(value, forKey: .value)
    case .rejected(let error): try container.encode(RecordedThunkError(error), forKey: .error)
    case .pending, .cancelled: break
    }
  }
}

/// The keys of a lifecycle action's encoding; `valueNotRecorded` is written by recorders in
/// place of a value that is not `Encodable`.
package enum ThunkLifecycleCodingKeys: String, CodingKey {
  case name, requestID, phase, value, error, valueNotRecorded
}

/// Any ``ThunkLifecycle``, whatever its value type: what lets a recorder write the lifecycle of a
/// thunk whose value is not `Codable` by its name and phase.
package protocol AnyThunkLifecycle: Action {
  /// The thunk's name.
  var name: String { get }
  /// The run's number.
  var requestID: UInt64 { get }
  /// The phase's name.
  var phaseName: String { get }
  /// The value, for a `fulfilled` action.
  var anyValue: (any Sendable)? { get }
  /// The error, for a `rejected` action.
  var error: (any Error)? { get }
  /// The thunk's value type.
  static var valueType: any Sendable.Type { get }
}

extension ThunkLifecycle: AnyThunkLifecycle {
  package var phaseName: String { phase.name }
  package var anyValue: (any Sendable)? { value }
  package static var valueType: any Sendable.Type { Value.self }
}
