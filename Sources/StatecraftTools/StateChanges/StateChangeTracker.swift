import Foundation
import Statecraft

// The change tracker and the log of the changes it finds. The tree it keeps is in EncodedNode.swift,
// built by NodeBuilder.swift from what a value writes to TreeEncoder.swift.

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
final class ChangeLog {
  var changes: [JSONChange] = []

  func append(_ kind: JSONChange.Kind, at path: [JSONPathComponent], _ value: JSONValue?) {
    changes.append(JSONChange(path: path, kind: kind, value: value))
  }
}
