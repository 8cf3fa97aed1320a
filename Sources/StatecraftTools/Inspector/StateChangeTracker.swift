import Foundation
import Statecraft

/// Encodes successive states as JSON trees and names what changed from one to the next.
///
/// Each place in the tree keeps the value it was encoded from; the next state's value at that
/// place is compared with it first (when its type is `Equatable`), and an equal value is neither
/// encoded again nor diffed. So the work for one state is the size of the parts that changed,
/// plus one comparison for each element of a collection that changed. It trusts `==`: a type
/// whose `==` ignores some of its stored properties hides their changes. The JSON is the shape
/// `JSONEncoder` writes (`Data` as Base64, `URL` as its string, `Decimal` as a number), except
/// that a whole-valued floating-point number is written as an integer.
package struct StateChangeTracker<State: Encodable> {
  private var root: EncodedNode?
  private let types = TypeTable()

  package init() {}

  /// Encodes `state` and returns the changes from the state before it; none for the first.
  ///
  /// - Throws: `EncodingError` if a value cannot be encoded as JSON (a non-finite number).
  package mutating func track(_ state: State) throws -> [JSONChange] {
    let log = root == nil ? nil : ChangeLog()
    root = try EncodedNode.encode(state, previous: root, at: .root, log: log, types: types)
    return log?.changes ?? []
  }

  /// The last state tracked, as JSON.
  package var json: JSONValue { root?.json ?? .null }
}

/// The changes found while encoding, in the order a page applies them.
private final class ChangeLog {
  var changes: [JSONChange] = []

  func append(_ kind: JSONChange.Kind, at path: [JSONPathComponent], _ value: JSONValue?) {
    changes.append(JSONChange(path: path, kind: kind, value: value))
  }
}

/// One place of an encoded state: the value encoded there, if it can be compared, and its JSON.
private final class EncodedNode {
  enum Content {
    case leaf(JSONValue)
    case object([String: EncodedNode])
    case array([EncodedNode])
  }

  /// The value encoded here, boxed, when its type is `Equatable`.
  let value: AnyObject?
  let content: Content

  init(value: AnyObject?, content: Content) {
    self.value = value
    self.content = content
  }

  var json: JSONValue {
    switch content {
    case .leaf(let json): json
    case .object(let children): .object(children.mapValues(\.json))
    case .array(let children): .array(children.map(\.json))
    }
  }

  var objectChildren: [String: EncodedNode]? {
    if case .object(let children) = content { children } else { nil }
  }

  var arrayChildren: [EncodedNode]? {
    if case .array(let children) = content { children } else { nil }
  }

  /// Encodes `value` at the place `place` names, reusing `previous` if it was encoded from an
  /// equal value.
  ///
  /// With a `log`, which is given only with a `previous`, the changes from `previous` are
  /// appended to it.
  static func encode<Value: Encodable>(
    _ value: Value, previous: EncodedNode?, at place: Place, log: ChangeLog?, types: TypeTable
  ) throws -> EncodedNode {
    let info = types.info(of: Value.self)
    if let previous, let old = info.value(in: previous), info.isEqual?(old, value) == true {
      return previous
    }
    let boxed: AnyObject? = info.isEqual == nil ? nil : ValueBox(value)
    if let special = try specialJSON(value) {
      return leaf(special, value: boxed, previous: previous, at: place, log: log)
    }
    if let elements = info.elements {
      return try elements.encode(
        value, boxed: boxed, previous: previous, at: place, log: log, types: types)
    }
    let builder = NodeBuilder(previous: previous, path: place.path, log: log, types: types)
    try value.encode(to: TreeEncoder(builder: builder))
    return builder.finish(value: boxed)
  }

  static func leaf(
    _ json: JSONValue, value: AnyObject?, previous: EncodedNode?, at place: Place, log: ChangeLog?
  ) -> EncodedNode {
    if let log, previous?.json != json { log.append(.changed, at: place.path, json) }
    return EncodedNode(value: value, content: .leaf(json))
  }

  /// The JSON `JSONEncoder` writes for the types it treats specially.
  private static func specialJSON<Value>(_ value: Value) throws -> JSONValue? {
    switch value {
    case let data as Data: .string(data.base64EncodedString())
    case let url as URL: .string(url.absoluteString)
    case let decimal as Decimal: try number(NSDecimalNumber(decimal: decimal).doubleValue)
    default: nil
    }
  }

  static func number(_ value: Double) throws -> JSONValue {
    guard value.isFinite else {
      throw EncodingError.invalidValue(
        value, .init(codingPath: [], debugDescription: "\(value) is not a JSON number"))
    }
    if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
      return .integer(Int64(value))
    }
    return .number(value)
  }
}

/// A place in the state: a path built only when a change there is logged or a container there
/// is written, not for each element that is found unchanged.
private struct Place {
  let parent: [JSONPathComponent]
  let component: JSONPathComponent?

  static let root = Place(parent: [], component: nil)

  var path: [JSONPathComponent] {
    component.map { parent + [$0] } ?? parent
  }
}

/// A value kept in a node, to compare the next state's value at the same place with.
private final class ValueBox<Value> {
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// What the tracker knows of a type: its `==`, and for an array of `Equatable` elements, how to
/// compare it element by element.
private struct TypeInfo<Value> {
  let isEqual: ((Value, Value) -> Bool)?
  let elements: (any EquatableElements.Type)?

  /// The value kept in `node`, if it is of this type.
  func value(in node: EncodedNode) -> Value? {
    (node.value as? ValueBox<Value>)?.value
  }
}

/// The `TypeInfo` of each type met, found once per type and tracker.
private final class TypeTable {
  private final class Entry<Value> {
    let info: TypeInfo<Value>
    init(_ info: TypeInfo<Value>) { self.info = info }
  }

  private var entries: [ObjectIdentifier: AnyObject] = [:]
  private var lastKey: ObjectIdentifier?
  private var lastEntry: AnyObject?

  func info<Value>(of type: Value.Type) -> TypeInfo<Value> {
    let key = ObjectIdentifier(type)
    // Runs of one type are the common case: the elements of an array.
    if key == lastKey, let entry = lastEntry as? Entry<Value> { return entry.info }
    let entry: Entry<Value>
    if let found = entries[key] as? Entry<Value> {
      entry = found
    } else {
      entry = Entry(
        TypeInfo(
          isEqual: dynamicEquality(of: type),
          elements: (type as? any EquatableElements.Type)))
      entries[key] = entry
    }
    lastKey = key
    lastEntry = entry
    return entry.info
  }
}

/// An array whose elements are `Equatable`: compared element by element with the array encoded
/// before, so that elements found equal keep their nodes and are neither encoded nor diffed.
private protocol EquatableElements {
  static func encode<Value>(
    _ value: Value, boxed: AnyObject?, previous: EncodedNode?, at place: Place, log: ChangeLog?,
    types: TypeTable
  ) throws -> EncodedNode
}

extension Array: EquatableElements where Element: Encodable & Equatable {
  fileprivate static func encode<Value>(
    _ value: Value, boxed: AnyObject?, previous: EncodedNode?, at place: Place, log: ChangeLog?,
    types: TypeTable
  ) throws -> EncodedNode {
    guard let array = value as? [Element] else {
      preconditionFailure("an array of \(Element.self)")
    }
    let path = place.path
    let before = previous?.arrayChildren
    let old = (previous?.value as? ValueBox<[Element]>)?.value
    let isTracked = log != nil && before != nil
    var children: [EncodedNode] = []
    children.reserveCapacity(array.count)
    // Through buffer pointers and indices: this code is generic over the element type at run
    // time, and `enumerated()` or copies of elements would look up metadata for each element.
    let isRemoval = try array.withUnsafeBufferPointer { new in
      try (old ?? []).withUnsafeBufferPointer { old -> Bool in
        if let before, old.count == before.count,
          let (start, count) = removedRun(from: old, to: new)
        {
          // Elements removed from the middle: one removal each at `start`, which a page applies
          // as a splice, and the nodes of the elements after the run, kept.
          children += before[..<start]
          children += before[(start + count)...]
          if isTracked {
            for _ in 0..<count { log?.append(.removed, at: path + [.index(start)], nil) }
          }
          return true
        }
        for index in 0..<new.count {
          if let before, index < before.count {
            if index < old.count, old[index] == new[index] {
              children.append(before[index])
              continue
            }
            children.append(
              try EncodedNode.encode(
                new[index], previous: before[index],
                at: Place(parent: path, component: .index(index)), log: isTracked ? log : nil,
                types: types))
          } else {
            let node = try EncodedNode.encode(
              new[index], previous: nil, at: Place(parent: path, component: .index(index)),
              log: nil, types: types)
            if isTracked { log?.append(.added, at: path + [.index(index)], node.json) }
            children.append(node)
          }
        }
        return false
      }
    }
    if isRemoval { return EncodedNode(value: boxed, content: .array(children)) }
    if isTracked, let before, before.count > array.count {
      for index in (array.count..<before.count).reversed() {
        log?.append(.removed, at: path + [.index(index)], nil)
      }
    }
    let node = EncodedNode(value: boxed, content: .array(children))
    if let log, previous != nil, before == nil { log.append(.changed, at: path, node.json) }
    return node
  }
}

/// The start and length of the run of elements removed from `old` to make `new`.
///
/// `nil` when more changed, or when elements were only removed from the end.
private func removedRun<Element: Equatable>(
  from old: UnsafeBufferPointer<Element>, to new: UnsafeBufferPointer<Element>
) -> (start: Int, count: Int)? {
  guard new.count < old.count else { return nil }
  var prefix = 0
  while prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
  guard prefix < new.count else { return nil }
  let count = old.count - new.count
  var index = prefix
  while index < new.count {
    guard old[index + count] == new[index] else { return nil }
    index += 1
  }
  return (prefix, count)
}

/// Collects what one value's `encode(to:)` writes, and turns it into a node.
private final class NodeBuilder {
  enum Kind {
    case empty, leaf, single, object, array
  }

  let previous: EncodedNode?
  let path: [JSONPathComponent]
  let log: ChangeLog?
  let types: TypeTable
  /// The previous node's children, when it has the kind of container now written: only then are
  /// the children compared one by one.
  private let previousObject: [String: EncodedNode]?
  private let previousArray: [EncodedNode]?

  private(set) var kind = Kind.empty
  private var leaf = JSONValue.null
  private var single: EncodedNode?
  private var object: [String: EncodedNode] = [:]
  private var array: [EncodedNode] = []
  private var pending: [(JSONPathComponent, NodeBuilder, isAdded: Bool)] = []

  init(previous: EncodedNode?, path: [JSONPathComponent], log: ChangeLog?, types: TypeTable) {
    self.previous = previous
    self.path = path
    self.log = log
    self.types = types
    previousObject = previous?.objectChildren
    previousArray = previous?.arrayChildren
  }

  private var isTracked: Bool {
    log != nil && (previousObject != nil || previousArray != nil)
  }

  var arrayCount: Int { array.count }

  func startObject() {
    if kind != .object { kind = .object }
  }

  func startArray() {
    if kind != .array { kind = .array }
  }

  func setLeaf(_ json: JSONValue) {
    kind = .leaf
    leaf = json
  }

  func setSingle(_ node: EncodedNode) {
    kind = .single
    single = node
  }

  private func previousChild(at component: JSONPathComponent) -> EncodedNode? {
    switch component {
    case .key(let key): previousObject?[key]
    case .index(let index): previousArray.flatMap { index < $0.count ? $0[index] : nil }
    }
  }

  /// Encodes a child at `component`, against the previous node's child there.
  func child<Value: Encodable>(_ value: Value, at component: JSONPathComponent) throws
    -> EncodedNode
  {
    let before = previousChild(at: component)
    let node = try EncodedNode.encode(
      value, previous: before, at: Place(parent: path, component: component),
      log: isTracked && before != nil ? log : nil, types: types)
    if isTracked, before == nil { log?.append(.added, at: path + [component], node.json) }
    return node
  }

  func setObjectChild(_ node: EncodedNode, forKey key: String) {
    object[key] = node
  }

  func appendArrayChild(_ node: EncodedNode) {
    array.append(node)
  }

  /// Starts a child container with no value of its own (`nestedContainer`, `superEncoder`),
  /// which `finish` completes: its place is kept now, in order.
  func nested(at component: JSONPathComponent) -> NodeBuilder {
    let before = previousChild(at: component)
    let nested = NodeBuilder(
      previous: before, path: path + [component], log: isTracked && before != nil ? log : nil,
      types: types)
    let placeholder = EncodedNode(value: nil, content: .leaf(.null))
    switch component {
    case .key(let key): object[key] = placeholder
    case .index: array.append(placeholder)
    }
    pending.append((component, nested, isTracked && before == nil))
    return nested
  }

  func finish(value: AnyObject?) -> EncodedNode {
    for (component, nested, isAdded) in pending {
      let node = nested.finish(value: nil)
      if isAdded { log?.append(.added, at: nested.path, node.json) }
      switch component {
      case .key(let key): object[key] = node
      case .index(let index): array[index] = node
      }
    }
    pending = []
    switch kind {
    case .empty:
      return finishContainer(.object([:]), value: value, isSameKind: previousObject != nil)
    case .leaf:
      return EncodedNode.leaf(
        leaf, value: value, previous: previous, at: Place(parent: path, component: nil), log: log)
    case .single:
      return EncodedNode(value: value, content: single?.content ?? .leaf(.null))
    case .object:
      if let log, let before = previousObject {
        for key in before.keys.sorted() where object[key] == nil {
          log.append(.removed, at: path + [.key(key)], nil)
        }
      }
      return finishContainer(.object(object), value: value, isSameKind: previousObject != nil)
    case .array:
      if let log, let before = previousArray, before.count > array.count {
        for index in (array.count..<before.count).reversed() {
          log.append(.removed, at: path + [.index(index)], nil)
        }
      }
      return finishContainer(.array(array), value: value, isSameKind: previousArray != nil)
    }
  }

  /// A container whose previous node was of another kind changed as a whole.
  private func finishContainer(
    _ content: EncodedNode.Content, value: AnyObject?, isSameKind: Bool
  ) -> EncodedNode {
    let node = EncodedNode(value: value, content: content)
    if let log, previous != nil, !isSameKind { log.append(.changed, at: path, node.json) }
    return node
  }
}

/// The `Encoder` a value writes itself to.
private struct TreeEncoder: Encoder {
  let builder: NodeBuilder

  var codingPath: [any CodingKey] { builder.path.map(PathKey.init) }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    builder.startObject()
    return KeyedEncodingContainer(KeyedContainer<Key>(builder: builder))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    builder.startArray()
    return UnkeyedContainer(builder: builder)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleValueContainer(builder: builder)
  }
}

private struct PathKey: CodingKey {
  let stringValue: String
  let intValue: Int?

  init(_ component: JSONPathComponent) {
    switch component {
    case .key(let key):
      stringValue = key
      intValue = nil
    case .index(let index):
      stringValue = String(index)
      intValue = index
    }
  }

  init?(stringValue: String) {
    self.stringValue = stringValue
    intValue = nil
  }

  init?(intValue: Int) {
    stringValue = String(intValue)
    self.intValue = intValue
  }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let builder: NodeBuilder

  var codingPath: [any CodingKey] { builder.path.map(PathKey.init) }

  mutating func encodeNil(forKey key: Key) throws {
    try encode(JSONNull(), forKey: key)
  }

  mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
    builder.setObjectChild(
      try builder.child(value, at: .key(key.stringValue)), forKey: key.stringValue)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let nested = builder.nested(at: .key(key.stringValue))
    nested.startObject()
    return KeyedEncodingContainer(KeyedContainer<NestedKey>(builder: nested))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let nested = builder.nested(at: .key(key.stringValue))
    nested.startArray()
    return UnkeyedContainer(builder: nested)
  }

  mutating func superEncoder() -> any Encoder {
    TreeEncoder(builder: builder.nested(at: .key("super")))
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    TreeEncoder(builder: builder.nested(at: .key(key.stringValue)))
  }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
  let builder: NodeBuilder

  var codingPath: [any CodingKey] { builder.path.map(PathKey.init) }
  var count: Int { builder.arrayCount }

  mutating func encodeNil() throws {
    try encode(JSONNull())
  }

  mutating func encode<Value: Encodable>(_ value: Value) throws {
    builder.appendArrayChild(try builder.child(value, at: .index(count)))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    let nested = builder.nested(at: .index(count))
    nested.startObject()
    return KeyedEncodingContainer(KeyedContainer<NestedKey>(builder: nested))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let nested = builder.nested(at: .index(count))
    nested.startArray()
    return UnkeyedContainer(builder: nested)
  }

  mutating func superEncoder() -> any Encoder {
    TreeEncoder(builder: builder.nested(at: .index(count)))
  }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
  let builder: NodeBuilder

  var codingPath: [any CodingKey] { builder.path.map(PathKey.init) }

  mutating func encodeNil() throws { builder.setLeaf(.null) }
  mutating func encode(_ value: Bool) throws { builder.setLeaf(.bool(value)) }
  mutating func encode(_ value: String) throws { builder.setLeaf(.string(value)) }
  mutating func encode(_ value: Double) throws { builder.setLeaf(try EncodedNode.number(value)) }
  mutating func encode(_ value: Float) throws {
    // Through its shortest text, as JSONEncoder writes it: 0.1 rather than 0.10000000149.
    builder.setLeaf(try EncodedNode.number(Double("\(value)") ?? Double(value)))
  }
  mutating func encode(_ value: Int) throws { integer(value) }
  mutating func encode(_ value: Int8) throws { integer(value) }
  mutating func encode(_ value: Int16) throws { integer(value) }
  mutating func encode(_ value: Int32) throws { integer(value) }
  mutating func encode(_ value: Int64) throws { integer(value) }
  mutating func encode(_ value: UInt) throws { integer(value) }
  mutating func encode(_ value: UInt8) throws { integer(value) }
  mutating func encode(_ value: UInt16) throws { integer(value) }
  mutating func encode(_ value: UInt32) throws { integer(value) }
  mutating func encode(_ value: UInt64) throws { integer(value) }

  mutating func encode<Value: Encodable>(_ value: Value) throws {
    // The same place as the value that wrote this container, and its previous node.
    builder.setSingle(
      try EncodedNode.encode(
        value, previous: builder.previous, at: Place(parent: builder.path, component: nil),
        log: builder.log, types: builder.types))
  }

  private func integer<Value: BinaryInteger>(_ value: Value) {
    builder.setLeaf(Int64(exactly: value).map(JSONValue.integer) ?? .number(Double(value)))
  }
}

/// What `encodeNil` writes: a value, so that it goes through the same path as any other.
private struct JSONNull: Encodable, Equatable {
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encodeNil()
  }
}
