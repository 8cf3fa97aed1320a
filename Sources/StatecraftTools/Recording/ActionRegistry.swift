import Foundation
import Statecraft

/// The action types a recording can write and read back, by name.
///
/// Actions that are `Codable` and registered are recorded with their values and can be
/// replayed; others are recorded by type name only and reported as not replayable.
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
    guard let encode = encoders[ObjectIdentifier(Swift.type(of: action))] else { return nil }
    return try? encode(action)
  }

  /// Whether actions of `type` are recorded with their values.
  func canEncode(_ type: any Action.Type) -> Bool {
    encoders[ObjectIdentifier(type)] != nil
  }

  func decoder(for name: String) -> (@Sendable (Data) throws -> any Action)? {
    decoders[name]
  }
}
