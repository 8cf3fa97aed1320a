/// A first-in, first-out queue that allocates nothing in a steady flow of pushes and pops.
///
/// It keeps its storage when it empties. A popped element is released at once.
@usableFromInline
struct FIFO<Element> {
  @usableFromInline var storage: [Element?] = []
  @usableFromInline var head = 0

  @inlinable
  init() {}

  @inlinable
  var isEmpty: Bool { head == storage.count }

  @inlinable
  var count: Int { storage.count - head }

  @inlinable
  mutating func append(_ element: Element) {
    storage.append(element)
  }

  /// Removes every element, keeping the storage.
  @inlinable
  mutating func removeAll() {
    storage.removeAll(keepingCapacity: true)
    head = 0
  }

  @inlinable
  mutating func popFirst() -> Element? {
    guard head < storage.count else { return nil }
    let element = storage[head].take()
    head += 1
    if head == storage.count {
      storage.removeAll(keepingCapacity: true)
      head = 0
    } else if head >= 4096, head * 2 >= storage.count {
      storage.removeFirst(head)
      head = 0
    }
    return element
  }
}

extension FIFO: Sendable where Element: Sendable {}
