// What builds an `EncodedNode` from what one value's `encode(to:)` writes: its children compared
// with the previous node's, and the changes logged.

/// Collects what one value's `encode(to:)` writes, and turns it into a node.
final class NodeBuilder {
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
