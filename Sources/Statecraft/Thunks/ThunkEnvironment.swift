/// A key for a value in the ``ThunkEnvironment``, with the value used when none was set.
///
/// ```swift
/// enum FilmServiceKey: ThunkEnvironmentKey {
///   static let defaultValue: any FilmService = LiveFilmService()      // the app's
///   static let testValue: (any FilmService)? = StubFilmService()      // tests', optional
///   static let previewValue: (any FilmService)? = BundledFilmService() // previews', optional
/// }
/// ```
///
/// In a test (a `TestStore` or `ExpectThunk`), a key the test did not set gives its
/// ``testValue``; a key without one fails the test with the key's name, so a forgotten stub never
/// goes unnoticed.
public protocol ThunkEnvironmentKey: SendableMetatype {
  /// The type of the value.
  associatedtype Value: Sendable
  /// The value used when the environment has none for this key: the live one.
  /// - Complexity: Read on each `context.environment[Key.self]` that finds no value set; keep
  ///   it O(1).
  static var defaultValue: Value { get }
  /// The value tests use when they set none; `nil` (the default) makes reading the key in a test
  /// without setting it a test failure.
  /// - Complexity: Read like ``defaultValue``; keep it O(1).
  static var testValue: Value? { get }
  /// The value previews use when they set none; `nil` (the default) uses ``defaultValue``.
  /// - Complexity: Read like ``defaultValue``; keep it O(1).
  static var previewValue: Value? { get }
}

extension ThunkEnvironmentKey {
  /// No test value: reading the key in a test without setting it fails the test.
  /// - Complexity: O(1).
  public static var testValue: Value? { nil }
  /// No preview value: previews use ``defaultValue``.
  /// - Complexity: O(1).
  public static var previewValue: Value? { nil }
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
  /// Where the environment is used, which decides the value of a key nobody set.
  public enum Context: Sendable {
    /// The app: ``ThunkEnvironmentKey/defaultValue``.
    case live
    /// A preview: ``ThunkEnvironmentKey/previewValue``, else the default value.
    case preview
    /// A test: ``ThunkEnvironmentKey/testValue``; a key without one calls `unset` with its name
    /// (the testing helpers record a test failure) and gives the default value.
    case test(unset: @Sendable (_ key: String) -> Void)
  }

  private var values: [ObjectIdentifier: any Sendable] = [:]

  /// Where the environment is used; ``Context/live`` unless a test or a preview says otherwise.
  /// - Complexity: O(1).
  public var context: Context = .live

  /// Creates an empty environment: every key has its default value.
  /// - Complexity: O(1).
  public init() {}

  /// The value set for `key`, else the value for the ``context``.
  /// - Complexity: O(1) on average: a dictionary lookup.
  public subscript<Key: ThunkEnvironmentKey>(key: Key.Type) -> Key.Value {
    get {
      if let value = values[ObjectIdentifier(key)] as? Key.Value { return value }
      switch context {
      case .live: return Key.defaultValue
      case .preview: return Key.previewValue ?? Key.defaultValue
      case .test(let unset):
        if let value = Key.testValue { return value }
        unset(String(describing: key))
        return Key.defaultValue
      }
    }
    set { values[ObjectIdentifier(key)] = newValue }
  }
}
