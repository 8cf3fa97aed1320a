extension JSONValue {
  /// Applies `change` in place: what a reader of a recording does to rebuild each state.
  ///
  /// The containers on the change's path are changed in place, not copied, when this value holds
  /// the only reference to them. A path that leads nowhere (a missing key, an index out of range)
  /// changes nothing and returns `false`.
  ///
  /// - Complexity: O(*d*) for a path of *d* components, plus a removal from an array's middle.
  @discardableResult
  package mutating func apply(_ change: JSONChange) -> Bool {
    apply(change, at: change.path[...])
  }

  private mutating func apply(_ change: JSONChange, at path: ArraySlice<JSONPathComponent>) -> Bool
  {
    guard let component = path.first else {
      self = change.value ?? .null
      return true
    }
    let isLast = path.count == 1
    switch (self, component) {
    case (.object(var object), .key(let key)):
      self = .null  // so that `object` holds the only reference to its storage
      defer { self = .object(object) }
      if isLast {
        object[key] = change.kind == .removed ? nil : (change.value ?? .null)
        return true
      }
      return object[key]?.apply(change, at: path.dropFirst()) ?? false
    case (.array(var array), .index(let index)):
      self = .null
      defer { self = .array(array) }
      if isLast {
        switch change.kind {
        case .removed:
          guard array.indices.contains(index) else { return false }
          array.remove(at: index)
        case .added where index == array.count:
          array.append(change.value ?? .null)
        case .added, .changed:
          guard array.indices.contains(index) else { return false }
          array[index] = change.value ?? .null
        }
        return true
      }
      guard array.indices.contains(index) else { return false }
      return array[index].apply(change, at: path.dropFirst())
    default:
      return false
    }
  }

  /// This value with every part at a path `isSensitive` names replaced by the string
  /// `"<redacted>"`.
  ///
  /// Paths are object keys and array indices joined by dots after `path`: `"session.token"`,
  /// `"todos.3.title"`, `"action.login.password"`.
  ///
  /// - Complexity: O(*n*) calls of `isSensitive` for a value of *n* nodes.
  package func redacted(at path: String, isSensitive: (String) -> Bool) -> JSONValue {
    if !path.isEmpty, isSensitive(path) { return .redacted }
    func child(_ name: String) -> String { path.isEmpty ? name : path + "." + name }
    switch self {
    case .object(let object):
      var result: [String: JSONValue] = [:]
      result.reserveCapacity(object.count)
      for (key, value) in object {
        result[key] = value.redacted(at: child(key), isSensitive: isSensitive)
      }
      return .object(result)
    case .array(let array):
      return .array(
        array.indices.map { array[$0].redacted(at: child(String($0)), isSensitive: isSensitive) })
    default:
      return self
    }
  }

  /// What a redacted value is written as.
  package static let redacted = JSONValue.string("<redacted>")

  /// Whether `actual` is this value, where every `"<redacted>"` in this value matches anything:
  /// how a generated test compares the states of a redacted recording.
  ///
  /// - Complexity: O(*n*) for values of *n* nodes.
  package func matches(_ actual: JSONValue) -> Bool {
    switch (self, actual) {
    case (.string("<redacted>"), _): true
    case (.object(let expected), .object(let actual)):
      expected.count == actual.count
        && expected.allSatisfy { key, value in actual[key].map(value.matches) ?? false }
    case (.array(let expected), .array(let actual)):
      expected.count == actual.count && zip(expected, actual).allSatisfy { $0.matches($1) }
    default: self == actual
    }
  }
}

extension JSONChange {
  /// The path as a redaction rule names it: keys and indices joined by dots.
  package var dottedPath: String {
    path.map {
      switch $0 {
      case .key(let key): key
      case .index(let index): String(index)
      }
    }.joined(separator: ".")
  }

  /// This change with what `isSensitive` names replaced by `"<redacted>"`: the whole value when
  /// the change's path or a path above it is sensitive, else the sensitive parts inside it.
  ///
  /// - Complexity: O(*d* + *n*) calls of `isSensitive` for a path of *d* components and a value
  ///   of *n* nodes.
  package func redacted(isSensitive: (String) -> Bool) -> JSONChange {
    var prefix = ""
    for component in path {
      let name: String
      switch component {
      case .key(let key): name = key
      case .index(let index): name = String(index)
      }
      prefix = prefix.isEmpty ? name : prefix + "." + name
      if isSensitive(prefix) {
        return JSONChange(path: path, kind: kind, value: value == nil ? nil : .redacted)
      }
    }
    return JSONChange(
      path: path, kind: kind, value: value?.redacted(at: prefix, isSensitive: isSensitive))
  }

  /// Whether `actual` is this change, where `"<redacted>"` in this change's value matches
  /// anything.
  ///
  /// - Complexity: O(*n*) for values of *n* nodes.
  package func matches(_ actual: JSONChange) -> Bool {
    guard path == actual.path, kind == actual.kind else { return false }
    switch (value, actual.value) {
    case (nil, nil): return true
    case (let expected?, let actual?): return expected.matches(actual)
    default: return false
    }
  }
}
