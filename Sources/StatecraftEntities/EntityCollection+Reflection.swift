extension EntityCollection: CustomReflectable {
  /// A mirror whose children are the entities, labelled by their ids, in order.
  ///
  /// `dump` and `TestStore`'s failure diff print an entity under its id, so
  /// a changed entity reads as a change under that id, not as elements shifted in an array:
  ///
  /// ```
  /// ▿ todos: 2 key/value pairs
  ///   ▿ 1: Todo
  ///     - id: 1
  ///     - title: "Buy milk"
  ///     - isDone: true
  /// ```
  ///
  /// - Complexity: O(*n*).
  public var customMirror: Mirror {
    let children = zip(directory.ids, storage).map { id, element in
      (label: String(reflecting: id) as String?, value: element as Any)
    }
    return Mirror(self, children: children, displayStyle: .dictionary)
  }
}

extension EntityCollection: CustomStringConvertible, CustomDebugStringConvertible {
  /// The entities by id, in order, as a dictionary literal: `[1: Todo(…), 2: Todo(…)]`.
  ///
  /// - Complexity: O(*n*).
  public var description: String {
    guard !storage.isEmpty else { return "[:]" }
    let pairs = zip(directory.ids, storage).map { id, element in
      "\(String(reflecting: id)): \(String(reflecting: element))"
    }
    return "[" + pairs.joined(separator: ", ") + "]"
  }

  /// The type and its entities by id: `EntityCollection<Int, Todo>([1: Todo(…)])`.
  ///
  /// - Complexity: O(*n*).
  public var debugDescription: String {
    "EntityCollection<\(ID.self), \(Element.self)>(\(description))"
  }
}
