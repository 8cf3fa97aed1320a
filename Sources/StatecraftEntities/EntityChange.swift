/// A change to some properties of an entity, a value an action can carry: Redux Toolkit's
/// `changes` of `updateOne`.
///
/// ```swift
/// let rename = EntityChange<Todo>.set(\.title, to: "Buy oat milk").set(\.isDone, to: false)
/// todos.update(id: 1, applying: rename)
/// ```
///
/// A change is a list of assignments applied in order, or any function that changes an entity
/// in place (``init(_:)``). It is `Sendable`, so an action can carry it across threads.
public struct EntityChange<Element>: Sendable {
  private let body: @Sendable (inout Element) -> Void

  /// A change that runs a function on the entity.
  ///
  /// - Parameter body: Changes the entity in place.
  /// - Complexity: O(1).
  public init(_ body: @escaping @Sendable (inout Element) -> Void) {
    self.body = body
  }

  /// A change that sets one property.
  ///
  /// - Parameters:
  ///   - keyPath: The property.
  ///   - value: Its new value.
  /// - Returns: The change.
  /// - Complexity: O(1).
  public static func set<Value: Sendable>(
    _ keyPath: WritableKeyPath<Element, Value> & Sendable, to value: Value
  ) -> Self {
    Self { $0[keyPath: keyPath] = value }
  }

  /// This change followed by setting one more property.
  ///
  /// - Parameters:
  ///   - keyPath: The property.
  ///   - value: Its new value.
  /// - Returns: The longer change.
  /// - Complexity: O(1); applying the result runs one more assignment.
  public func set<Value: Sendable>(
    _ keyPath: WritableKeyPath<Element, Value> & Sendable, to value: Value
  ) -> Self {
    let body = self.body
    return Self { element in
      body(&element)
      element[keyPath: keyPath] = value
    }
  }

  /// Applies the change to an entity.
  ///
  /// - Parameter element: The entity to change.
  /// - Complexity: The change's assignments.
  public func apply(to element: inout Element) {
    body(&element)
  }
}
