import Statecraft

/// An array of `Int` with copy-on-write storage that counts the copies its mutations make: a
/// state that shows whether the store held a second reference to it.
struct CountedArray: Equatable, Sendable {
  final class Storage: @unchecked Sendable {
    // @unchecked Sendable: mutated only through `CountedArray.set`, after the uniqueness check
    // that copies a shared storage first.
    var values: [Int]
    init(_ values: [Int]) { self.values = values }
  }

  final class Copies: Sendable {
    let count = TestAtomic<Int>(0)
  }

  private var storage: Storage
  let copies: Copies

  init(count: Int, copies: Copies) {
    storage = Storage(Array(repeating: 0, count: count))
    self.copies = copies
  }

  subscript(index: Int) -> Int { storage.values[index] }

  mutating func set(_ index: Int, to value: Int) {
    if !isKnownUniquelyReferenced(&storage) {
      storage = Storage(storage.values)
      copies.count.add(1, ordering: .relaxed)
    }
    storage.values[index] = value
  }

  static func == (lhs: CountedArray, rhs: CountedArray) -> Bool {
    lhs.storage === rhs.storage || lhs.storage.values == rhs.storage.values
  }
}

struct SetElement: Action {
  let index: Int
  let value: Int
}

/// A store of `count` elements whose in-place reducer sets one element per `SetElement`.
func makeLargeStore(count: Int, copies: CountedArray.Copies) -> Store<CountedArray> {
  Store<CountedArray>(
    reducer: { (state: inout CountedArray, action: any Action) in
      if let action = action as? SetElement { state.set(action.index, to: action.value) }
    },
    state: CountedArray(count: count, copies: copies)
  )
}

/// A flag shared between threads.
final class Flag: Sendable {
  private let value = TestAtomic<Bool>(false)
  var isSet: Bool { value.load(ordering: .acquiring) }
  func set() { value.store(true, ordering: .releasing) }
}
