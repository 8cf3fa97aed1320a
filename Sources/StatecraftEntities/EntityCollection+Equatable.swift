extension EntityCollection: Equatable where Element: Equatable {
  /// Whether two collections hold equal entities with the same ids, in the same order.
  ///
  /// The collections' orders (``EntityOrder``) and id functions are configuration, not value,
  /// and are not compared.
  ///
  /// - Parameters:
  ///   - lhs: A collection.
  ///   - rhs: Another collection.
  /// - Returns: `true` if the ids and the entities are equal, in order.
  /// - Complexity: O(1) when the two share their storage (a collection and an unchanged copy of
  ///   it); otherwise O(*n*).
  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.storage.count == rhs.storage.count && lhs.directory.ids == rhs.directory.ids
      && lhs.storage == rhs.storage
  }
}
