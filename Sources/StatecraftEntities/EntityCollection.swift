/// Entities by id, in a stable order: a normalized collection for a store's state.
///
/// An entity collection keeps each entity once, under its id, and keeps the entities in the order
/// they were added or in a sort order you give. It reads like a dictionary by id and iterates like
/// an array, so a list view iterates it directly and a reducer changes one entity in place:
///
/// ```swift
/// struct Todo: Identifiable, Equatable, Sendable {
///   let id: Int
///   var title: String
///   var isDone = false
/// }
///
/// var todos: EntityCollection<Int, Todo> = [Todo(id: 1, title: "Buy milk")]
/// todos.add(Todo(id: 2, title: "Call Ann"))
/// todos[id: 1]?.isDone = true
/// todos.remove(id: 2)
/// for todo in todos { print(todo.title) }
/// ```
///
/// It plays the part of Redux Toolkit's `createEntityAdapter` state and of The Composable
/// Architecture's `IdentifiedArray`. The name says what it holds in Redux's words; it does not
/// clash with `IdentifiedArray` in an app that imports both.
///
/// ## Storage and cost
///
/// The entities are kept in one array in the collection's order, so iteration, ``elements`` and
/// `==` cost what they cost on an array. A hash table maps each id to a number that stays the
/// id's while it is in the collection, and two integer arrays map those numbers to positions
/// and back. So:
///
/// - Finding an entity by id, reading it and changing it in place are O(1).
/// - Adding at the end (insertion order) is amortized O(1).
/// - Removing an entity, or inserting one elsewhere than at the end, shifts the entities after it
///   by one place and renumbers their positions in the integer arrays: O(*n* − *p*) for position
///   *p*, O(1) at the end. The hash table is not touched for the entities that move. A collection
///   that also iterates as an array, position by position in O(1), cannot remove from the middle
///   in O(1): `remove(ids:)` removes many in one pass.
/// - A sorted collection finds an added entity's place with a binary search, O(log *n*)
///   comparisons, then inserts it there, O(*n* − *p*).
///
/// Every mutation keeps the storage when the collection holds the only reference to it, as a
/// store's in-place reducer does, so changing one entity of a large collection allocates
/// nothing.
///
/// > Important: An entity's id is its key. Changing the id of an entity in place (through
/// > ``subscript(id:)`` or ``update(id:_:)``) stops the program with a message that names both
/// > ids: remove the entity and add the changed one instead.
///
/// `EntityCollection` is `Sendable`: its ids and elements are, and the functions it keeps (the
/// id of an element, the sort order) are `@Sendable`.
public struct EntityCollection<ID: Hashable & Sendable, Element: Sendable>: Sendable {
  /// The ids, in order, and where each id is.
  @usableFromInline var directory: EntityIndex<ID>
  /// The elements, in the order of `directory.ids`.
  @usableFromInline var storage: [Element]
  /// The id of an element.
  @usableFromInline let identify: @Sendable (Element) -> ID
  /// The order, which a sorted collection's mutations keep.
  @usableFromInline var orderRule: EntityOrder<Element>
  /// The entity being changed through ``subscript(id:)``, moved out of `storage` while the caller
  /// changes it; `nil` at all other times.
  ///
  /// It is kept here rather than in the accessor, so that the accessor's frame holds only a
  /// position and an id and fits the caller's buffer: a coroutine frame that does not fit is
  /// allocated.
  @usableFromInline var inFlight: Element?

  /// Creates an empty collection whose entities are identified by `id`, in the given order.
  ///
  /// For `Identifiable` elements, ``init(order:)`` reads the id by itself.
  ///
  /// ```swift
  /// var users = EntityCollection<String, User>(id: \.email, order: .sorted(by: \.name))
  /// ```
  ///
  /// - Parameters:
  ///   - id: Reads an element's id, usually a key path.
  ///   - order: The order of the entities: ``EntityOrder/insertion`` unless given.
  /// - Complexity: O(1).
  public init(
    id: @escaping @Sendable (Element) -> ID, order: EntityOrder<Element> = .insertion
  ) {
    // Not inlinable: built with library evolution, only the module's own initializer may set
    // the stored properties; the inlinable initializers call it.
    self.directory = EntityIndex()
    self.storage = []
    self.identify = id
    self.orderRule = order
    self.inFlight = nil
  }

  /// Creates a collection of the given elements, identified by `id`, in the given order.
  ///
  /// When two elements have the same id, the first is kept, as ``add(contentsOf:)`` does.
  ///
  /// - Parameters:
  ///   - elements: The entities.
  ///   - id: Reads an element's id, usually a key path.
  ///   - order: The order of the entities: ``EntityOrder/insertion`` unless given.
  /// - Complexity: O(*n*) in insertion order, O(*n* log *n*) sorted.
  @inlinable
  public init(
    _ elements: some Sequence<Element>,
    id: @escaping @Sendable (Element) -> ID,
    order: EntityOrder<Element> = .insertion
  ) {
    self.init(id: id, order: order)
    add(contentsOf: elements)
  }

  /// The ids of the entities, in order.
  ///
  /// - Complexity: O(1): the collection's own array, shared until either side changes.
  @inlinable
  public var ids: [ID] { directory.ids }

  /// The entities, in order, as an array.
  ///
  /// - Complexity: O(1): the collection's own array, shared until either side changes.
  @inlinable
  public var elements: [Element] { storage }

  /// The order the collection keeps.
  ///
  /// - Complexity: O(1).
  @inlinable
  public var order: EntityOrder<Element> { orderRule }

  /// The entity with the given id: `nil` if there is none.
  ///
  /// Reading returns the entity. Changing it through the subscript changes the entity in place,
  /// without copying the collection's storage or the entity; assigning an entity adds it or
  /// replaces the one with its id; assigning `nil` removes it.
  ///
  /// ```swift
  /// todos[id: 1]?.isDone = true   // in place; nothing happens if there is no entity 1
  /// todos[id: 3] = Todo(id: 3, title: "Water plants")
  /// todos[id: 2] = nil
  /// ```
  ///
  /// A sorted collection moves a changed entity that no longer fits between its neighbours.
  ///
  /// > Important: The id of an assigned entity, and of an entity changed in place, must be `id`.
  ///
  /// - Parameter id: The entity's id.
  /// - Complexity: O(1) to read or change in place. Adding, removing, and moving a changed entity
  ///   in a sorted collection cost what ``add(_:)``, ``remove(id:)`` and ``update(id:_:)`` cost.
  @inlinable
  public subscript(id id: ID) -> Element? {
    get {
      guard let position = directory.position(of: id) else { return nil }
      return storage[position]
    }
    set {
      if let newValue {
        Self.requireID(identify(newValue), is: id)
        upsert(newValue)
      } else {
        remove(id: id)
      }
    }
    _modify {
      let position = directory.position(of: id) ?? -1
      if position >= 0 { inFlight = takeEntity(at: position) }
      defer { finishModifying(at: position, id: id) }
      yield &inFlight
    }
  }

  /// Whether the collection holds an entity with the given id.
  ///
  /// - Parameter id: An id.
  /// - Returns: `true` if an entity has that id.
  /// - Complexity: O(1).
  @inlinable
  public func contains(id: ID) -> Bool {
    directory.position(of: id) != nil
  }

  /// The position of the entity with the given id.
  ///
  /// - Parameter id: An id.
  /// - Returns: The entity's position, or `nil` if no entity has that id.
  /// - Complexity: O(1).
  @inlinable
  public func index(id: ID) -> Int? {
    directory.position(of: id)
  }

  /// Reserves room for `minimumCapacity` entities, so that adding that many does not reallocate.
  ///
  /// - Parameter minimumCapacity: The number of entities to make room for.
  /// - Complexity: O(*n*) if it reallocates.
  @inlinable
  public mutating func reserveCapacity(_ minimumCapacity: Int) {
    directory.reserveCapacity(minimumCapacity)
    storage.reserveCapacity(minimumCapacity)
  }

  /// Moves the entity at `position` out of the storage, to yield it as an optional without a
  /// copy: it is swapped to the end and taken off; the array keeps its capacity.
  @inlinable
  mutating func takeEntity(at position: Int) -> Element {
    storage.swapAt(position, storage.count - 1)
    return storage.removeLast()
  }

  /// Puts back the entity ``takeEntity(at:)`` took from `position` into `inFlight`, or removes
  /// it if the caller set it to `nil`; with no position (-1), adds the entity the caller
  /// assigned, if any.
  @inlinable
  mutating func finishModifying(at position: Int, id: ID) {
    let entity = inFlight.take()
    guard position >= 0 else {
      guard let entity else { return }
      Self.requireID(identify(entity), is: id)
      add(entity)
      return
    }
    guard let entity else {
      // The entity at `position` is the one that was last: it goes back to the end.
      if position < storage.count {
        storage.append(storage.remove(at: position))
      }
      directory.remove(at: position)
      return
    }
    storage.append(entity)
    storage.swapAt(position, storage.count - 1)
    entityChanged(at: position, id: id)
  }

  /// Stops the program if `actual`, the id of an entity assigned or changed under `id`, is not
  /// `id`.
  ///
  /// Static, as every helper that mutating code calls: a non-mutating method called on `self`
  /// from a mutating one copies the whole collection (a retain of each of its buffers).
  @inlinable
  static func requireID(_ actual: ID, is id: ID) {
    precondition(
      actual == id,
      """
      EntityCollection: an entity with id \(actual) was assigned or changed under id \(id). \
      An entity's id is its key: remove the entity and add the changed one instead.
      """)
  }
}
