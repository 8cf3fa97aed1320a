extension EntityCollection where Element: Identifiable, ID == Element.ID {
  /// Creates an empty collection of identifiable entities, in the given order.
  ///
  /// ```swift
  /// var films = EntityCollection<Film.ID, Film>(order: .sorted(by: \.episode))
  /// ```
  ///
  /// - Parameter order: The order of the entities: ``EntityOrder/insertion`` unless given.
  /// - Complexity: O(1).
  @inlinable
  public init(order: EntityOrder<Element> = .insertion) {
    self.init(id: { $0.id }, order: order)
  }

  /// Creates a collection of the given identifiable entities, in the given order.
  ///
  /// When two elements have the same id, the first is kept, as ``add(contentsOf:)`` does.
  ///
  /// - Parameters:
  ///   - elements: The entities.
  ///   - order: The order of the entities: ``EntityOrder/insertion`` unless given.
  /// - Complexity: O(*n*) in insertion order, O(*n* log *n*) sorted.
  @inlinable
  public init(_ elements: some Sequence<Element>, order: EntityOrder<Element> = .insertion) {
    self.init(elements, id: { $0.id }, order: order)
  }
}

extension EntityCollection: ExpressibleByArrayLiteral
where Element: Identifiable, ID == Element.ID {
  /// Creates a collection, in insertion order, of the entities of an array literal.
  ///
  /// ```swift
  /// let todos: EntityCollection<Int, Todo> = [Todo(id: 1, title: "Buy milk")]
  /// ```
  ///
  /// > Important: The ids in a literal must differ, as the keys of a dictionary literal must: a
  /// > repeated id stops the program with a message that names it.
  ///
  /// - Parameter elements: The entities.
  /// - Complexity: O(*n*).
  @inlinable
  public init(arrayLiteral elements: Element...) {
    self.init(order: .insertion)
    reserveCapacity(elements.count)
    for element in elements {
      precondition(
        add(element),
        "EntityCollection: the array literal repeats the id \(element.id); ids must differ.")
    }
  }
}
