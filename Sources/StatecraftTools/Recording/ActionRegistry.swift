import Foundation
import Statecraft

/// The action types a recording can write and read back, by name.
///
/// Actions that are `Codable` and registered are recorded with their values and can be
/// replayed; others are recorded by type name only and reported as not replayable.
///
/// The library's own actions need no registration to be recorded. `StatecraftInit` is recorded
/// as `{}` and never replayed: a store dispatches its own. An `AsyncThunk`'s lifecycle action
/// is always recorded with the thunk's name, the run's `requestID` and the phase, with the
/// value when it is `Encodable` and the thrown error's type and descriptions; to replay it,
/// register it as any action, by its value type:
///
/// ```swift
/// registry.register(ThunkLifecycle<[Book]>.self)  // loadBooks is an AsyncThunk<Shelf, [Book]>
/// ```
///
/// A lifecycle whose value is not `Codable` cannot be registered: it is recorded and shown by
/// its thunk's name and phase, with `valueNotRecorded` in place of a `fulfilled` value, and
/// ``Recording`` reports each of its lines as not replayable.
///
/// ```swift
/// var registry = ActionRegistry()
/// registry.register(CounterAction.self)
/// registry.register(SetFilms.self)
/// ```
public struct ActionRegistry: Sendable {
  private var decoders: [String: @Sendable (Data) throws -> any Action] = [:]
  private var encoders: [ObjectIdentifier: @Sendable (any Action) throws -> Data] = [:]

  /// Creates an empty registry.
  /// - Complexity: O(1).
  public init() {}

  /// Registers a `Codable` action type.
  ///
  /// - Parameter type: The action type.
  /// - Complexity: O(*k*) amortized for a type name of *k* characters: two dictionary
  ///   insertions.
  public mutating func register<Recorded: Action & Codable>(_ type: Recorded.Type) {
    let name = Self.name(of: type)
    decoders[name] = { data in try JSONDecoder().decode(Recorded.self, from: data) }
    encoders[ObjectIdentifier(type)] = { action in
      guard let action = action as? Recorded else { throw CocoaError(.coderInvalidValue) }
      return try JSONEncoder().encode(action)
    }
  }

  /// This registry with the types of `other` added, such as the registries of two features.
  ///
  /// - Parameter other: Another registry; for a type in both, its entry wins.
  /// - Returns: The combined registry.
  /// - Complexity: O(*n*) for *n* registered types in `other`.
  public func merging(_ other: ActionRegistry) -> ActionRegistry {
    var merged = self
    merged.decoders.merge(other.decoders) { _, theirs in theirs }
    merged.encoders.merge(other.encoders) { _, theirs in theirs }
    return merged
  }

  static func name(of type: Any.Type) -> String {
    String(reflecting: type)
  }

  func encode(_ action: any Action) -> Data? {
    if let encode = encoders[ObjectIdentifier(Swift.type(of: action))] {
      return try? encode(action)
    }
    if action is StatecraftInit { return Data("{}".utf8) }
    if let lifecycle = action as? any AnyThunkLifecycle {
      return try? JSONEncoder().encode(LifecycleRecord(lifecycle: lifecycle))
    }
    return nil
  }

  /// Whether actions of `type` are recorded with their values: registered ones and the
  /// library's own.
  func canEncode(_ type: any Action.Type) -> Bool {
    encoders[ObjectIdentifier(type)] != nil || type == StatecraftInit.self
      || type is any AnyThunkLifecycle.Type
  }

  func decoder(for name: String) -> (@Sendable (Data) throws -> any Action)? {
    decoders[name]
  }

  /// The qualified names of the types it decodes, sorted.
  package var typeNames: [String] {
    decoders.keys.sorted()
  }

  /// The registered type that `name` names: its qualified name, or the name the tools show
  /// (``ActionNames/shortTypeName(_:)``), such as `NoteAction` for `NotesCore.NoteAction`.
  ///
  /// - Parameter name: A name typed on the inspector's page.
  /// - Returns: The qualified name.
  /// - Throws: ``ActionNameError`` when no registered type has that name, or several do.
  /// - Complexity: O(*n*) for *n* registered types.
  package func resolve(typeName name: String) throws(ActionNameError) -> String {
    try Self.resolve(typeName: name, among: typeNames)
  }

  /// The name among `names` that `name` names, whole or as shown.
  package static func resolve(
    typeName name: String, among names: [String]
  ) throws(ActionNameError) -> String {
    let name = name.trimmingCharacters(in: .whitespaces)
    if names.contains(name) { return name }
    let matches = names.filter { ActionNames.shortTypeName($0) == name }
    switch matches.count {
    case 1: return matches[0]
    case 0: throw ActionNameError.unknown(name, known: names)
    default: throw ActionNameError.ambiguous(name, candidates: matches)
    }
  }
}

/// Why a name typed on the inspector's page names no action type the app can decode.
package enum ActionNameError: Error, Equatable, CustomStringConvertible {
  /// No registered type has the name.
  case unknown(String, known: [String])
  /// Several registered types are shown by the name.
  case ambiguous(String, candidates: [String])

  package var description: String {
    switch self {
    case .unknown(let name, let known) where known.isEmpty:
      "\(name) is not in the app's ActionRegistry, which is empty: register the action types "
        + "the page may dispatch"
    case .unknown(let name, let known):
      "\(name) is not in the app's ActionRegistry; it holds "
        + ActionNames.offered(known).map(\.shown).joined(separator: ", ")
    case .ambiguous(let name, let candidates):
      "\(name) names \(candidates.count) action types in the app's ActionRegistry: "
        + candidates.joined(separator: ", ") + "; type the whole name of one"
    }
  }
}

/// Any lifecycle action as recordings hold it, whatever its value type: the value when it is
/// `Encodable`, else the reason it is not written.
private struct LifecycleRecord: Encodable {
  let lifecycle: any AnyThunkLifecycle

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: ThunkLifecycleCodingKeys.self)
    try container.encode(lifecycle.name, forKey: .name)
    try container.encode(lifecycle.requestID, forKey: .requestID)
    try container.encode(lifecycle.phaseName, forKey: .phase)
    if let value = lifecycle.anyValue {
      if let value = value as? any Encodable {
        try container.encode(value, forKey: .value)
      } else {
        let valueType = String(reflecting: type(of: lifecycle).valueType)
        try container.encode("\(valueType) is not Codable", forKey: .valueNotRecorded)
      }
    }
    if let error = lifecycle.error {
      try container.encode(RecordedThunkError(error), forKey: .error)
    }
  }
}
