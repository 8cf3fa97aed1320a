import Foundation
import Statecraft
import StatecraftPrimitives

// The tree a `StateChangeTracker` keeps: a node per place of the state, reused when the value
// there is equal to the one before, and arrays of `Equatable` elements compared element by element.

/// One place of an encoded state: the value encoded there, if it can be compared, and its JSON.
final class EncodedNode {
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
struct Place {
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
struct TypeInfo<Value> {
  let isEqual: ((Value, Value) -> Bool)?
  let elements: (any EquatableElements.Type)?

  /// The value kept in `node`, if it is of this type.
  func value(in node: EncodedNode) -> Value? {
    (node.value as? ValueBox<Value>)?.value
  }
}

/// The `TypeInfo` of each type met, found once per type and tracker.
final class TypeTable {
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
protocol EquatableElements {
  static func encode<Value>(
    _ value: Value, boxed: AnyObject?, previous: EncodedNode?, at place: Place, log: ChangeLog?,
    types: TypeTable
  ) throws -> EncodedNode
}

extension Array: EquatableElements where Element: Encodable & Equatable {
  static func encode<Value>(
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
