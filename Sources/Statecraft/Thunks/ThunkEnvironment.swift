/// A key for a value in the ``ThunkEnvironment``, with the value used when none was set.
///
/// ```swift
/// enum FilmServiceKey: ThunkEnvironmentKey {
///   static let defaultValue: any FilmService = BundledFilmService()
/// }
/// ```
public protocol ThunkEnvironmentKey: SendableMetatype {
  /// The type of the value.
  associatedtype Value: Sendable
  /// The value used when the environment has none for this key.
  static var defaultValue: Value { get }
}

/// The values a store provides to its thunks, such as services, so that thunks need no globals
/// and tests can replace them.
///
/// ```swift
/// mainStore.thunkEnvironment[FilmServiceKey.self] = StubFilmService(films: [])
/// // in a thunk:
/// let films = try await context.environment[FilmServiceKey.self].films()
/// ```
public struct ThunkEnvironment: Sendable {
  private var values: [ObjectIdentifier: any Sendable] = [:]

  /// Creates an empty environment: every key has its default value.
  /// - Complexity: O(1).
  public init() {}

  /// The value for `key`, or its default value.
  /// - Complexity: O(1) on average: a dictionary lookup.
  public subscript<Key: ThunkEnvironmentKey>(key: Key.Type) -> Key.Value {
    get { values[ObjectIdentifier(key)] as? Key.Value ?? Key.defaultValue }
    set { values[ObjectIdentifier(key)] = newValue }
  }
}
