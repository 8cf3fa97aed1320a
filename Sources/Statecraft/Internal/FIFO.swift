// Inlinable, as all the dispatch path calls (Benchmarks/README.md, "Why the engine is
// inlinable").

/// A first-in, first-out queue that allocates nothing in a steady flow of pushes and pops.
///
/// It keeps its storage when it empties. A popped element is released at once.
@usableFromInline
struct FIFO<Element> {
  @usableFromInline var _storage: [Element?] = []
  @usableFromInline var _head = 0

  @inlinable
  init() {}

  @inlinable
  var isEmpty: Bool { _head == _storage.count }

  @inlinable
  var count: Int { _storage.count - _head }

  @inlinable
  mutating func append(_ element: Element) {
    _storage.append(element)
  }

  /// Removes every element, keeping the storage.
  @inlinable
  mutating func removeAll() {
    _storage.removeAll(keepingCapacity: true)
    _head = 0
  }

  @inlinable
  mutating func popFirst() -> Element? {
    guard _head < _storage.count else { return nil }
    let element = _storage[_head].take()
    _head += 1
    if _head == _storage.count {
      _storage.removeAll(keepingCapacity: true)
      _head = 0
    } else if _head >= 4096, _head * 2 >= _storage.count {
      _storage.removeFirst(_head)
      _head = 0
    }
    return element
  }
}

extension FIFO: Sendable where Element: Sendable {}
