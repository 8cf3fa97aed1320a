/// The order of an ``EntityCollection``: the order entities were added in, or a sort order.
///
/// ```swift
/// var byTitle = EntityCollection<Film.ID, Film>(order: .sorted(by: \.title))
/// var newestFirst = EntityCollection<Film.ID, Film>(order: .sorted { $0.released > $1.released })
/// ```
///
/// A sorted collection keeps entities that compare equal in the order they took their places:
/// an added entity goes after the entities equal to it, and a changed entity that no longer fits
/// between its neighbours moves after the entities equal to it at its new place.
///
/// The order is part of the collection's configuration, not of its value: two collections with
/// the same entities in the same order are equal whatever their orders, and a collection's JSON
/// does not hold its order (a function cannot be encoded). See
/// ``EntityCollection/init(from:order:)``.
public struct EntityOrder<Element>: Sendable {
  @usableFromInline
  enum Rule: Sendable {
    case insertion
    case sorted(@Sendable (Element, Element) -> Bool)
  }

  @usableFromInline let rule: Rule

  @usableFromInline init(rule: Rule) {
    self.rule = rule
  }

  /// The order entities were added in; a replaced or changed entity keeps its place.
  ///
  /// - Complexity: O(1).
  public static var insertion: Self { Self(rule: .insertion) }

  /// Sorted by a predicate that says whether its first argument goes before its second.
  ///
  /// - Parameter areInIncreasingOrder: A strict weak ordering of the elements, as
  ///   `sort(by:)` takes.
  /// - Returns: The order.
  /// - Complexity: O(1).
  public static func sorted(
    by areInIncreasingOrder: @escaping @Sendable (Element, Element) -> Bool
  ) -> Self {
    Self(rule: .sorted(areInIncreasingOrder))
  }

  /// Sorted in increasing order of a value read from each element, usually a key path.
  ///
  /// ```swift
  /// EntityOrder<Film>.sorted(by: \.title)
  /// ```
  ///
  /// - Parameter key: Reads the value to sort by.
  /// - Returns: The order.
  /// - Complexity: O(1).
  public static func sorted<Key: Comparable & Sendable>(
    by key: @escaping @Sendable (Element) -> Key
  ) -> Self {
    Self(rule: .sorted { key($0) < key($1) })
  }

  /// Whether this is a sort order rather than the insertion order.
  ///
  /// - Complexity: O(1).
  public var isSorted: Bool {
    if case .sorted = rule { true } else { false }
  }
}
