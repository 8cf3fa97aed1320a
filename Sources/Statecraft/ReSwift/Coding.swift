/// A type that converts to and from a dictionary: ReSwift's protocol for state and actions that
/// tools serialize, kept so that code conforming to it compiles.
///
/// Statecraft's own tools (recording, persistence) use `Codable` instead.
public protocol Coding {
  /// Creates a value from its dictionary, or `nil` if the dictionary does not describe one.
  ///
  /// - Parameter dictionary: What ``dictionaryRepresentation`` returned.
  /// - Complexity: Defined by the conforming type.
  init?(dictionary: [String: AnyObject])

  /// The value as a dictionary.
  /// - Complexity: Defined by the conforming type.
  var dictionaryRepresentation: [String: AnyObject] { get }
}
