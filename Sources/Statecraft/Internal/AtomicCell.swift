import StatecraftAtomics

// Inlinable, as all the dispatch path calls (Benchmarks/README.md, "Why the engine is
// inlinable").

/// The memory ordering of an atomic operation, named as in `Synchronization`.
@usableFromInline
package enum AtomicOrdering {
  case relaxed
  case acquiring
  case releasing
  case acquiringAndReleasing
  case sequentiallyConsistent
}

/// A value that fits in an atomic 64-bit word.
@usableFromInline
package protocol AtomicWordRepresentable {
  init(atomicWord: UInt64)
  var atomicWord: UInt64 { get }
}

/// An atomic value in its own object and its own cache line, usable on every system Statecraft
/// supports.
///
/// `Synchronization.Atomic` needs macOS 15 and iOS 18. The operations are compiler builtins in
/// the `StatecraftAtomics` C module, which ThreadSanitizer instruments; the word is reached only
/// through its address, so Swift's exclusivity checks never see it. The methods mirror
/// `Atomic`'s; each call's ordering is a literal, so the switch folds away once inlined. The one
/// cost against `Atomic` is the load of the cell's reference.
///
/// The word sits between two pads of a cache line less a word each (`_Pad`), so that the line
/// it is in holds nothing else, whatever the allocator puts beside the object: the flags every
/// dispatch reads would otherwise share a line with the state lock's buffer, which every commit
/// writes (Benchmarks/README.md, workloads n and g, for what it gains and costs).
@usableFromInline
package final class AtomicCell<Value: AtomicWordRepresentable>: @unchecked Sendable {
  // @unchecked Sendable: the word is only read and written by the atomic operations below.
  // Laid out in this order: the word's address is the stored properties' plus one pad.
  @usableFromInline var _before: _Pad = _padding
  @usableFromInline var _word: UInt64
  @usableFromInline var _after: _Pad = _padding

  @inlinable
  package init(_ value: Value) {
    _word = value.atomicWord
  }

  @inlinable
  var _atomic: AtomicWord<Value> {
    AtomicWord(
      (_getUnsafePointerToStoredProperties(self) + MemoryLayout<_Pad>.size)
        .assumingMemoryBound(to: UInt64.self))
  }

  @inlinable
  package func load(ordering: AtomicOrdering) -> Value {
    _atomic.load(ordering: ordering)
  }

  @inlinable
  package func store(_ value: Value, ordering: AtomicOrdering) {
    _atomic.store(value, ordering: ordering)
  }

  @inlinable
  package func exchange(_ value: Value, ordering: AtomicOrdering) -> Value {
    _atomic.exchange(value, ordering: ordering)
  }
}

extension AtomicCell where Value: FixedWidthInteger {
  @inlinable
  @discardableResult
  package func add(_ delta: Value, ordering: AtomicOrdering) -> (oldValue: Value, newValue: Value) {
    _atomic.add(delta, ordering: ordering)
  }

  @inlinable
  @discardableResult
  package func subtract(_ delta: Value, ordering: AtomicOrdering) -> (
    oldValue: Value, newValue: Value
  ) {
    _atomic.add(0 &- delta, ordering: ordering)
  }
}

// A cache line less one word: 128-byte lines on 64-bit ARM (Apple silicon), 64 elsewhere. With
// an object starting on a 16-byte boundary after its 16-byte header, a word after one pad and
// before another has its line to itself.
#if arch(arm64) || arch(arm64_32)
  @usableFromInline
  typealias _Pad = (
    UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
    UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
  )
  @usableFromInline let _padding: _Pad = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
#else
  @usableFromInline
  typealias _Pad = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
  @usableFromInline let _padding: _Pad = (0, 0, 0, 0, 0, 0, 0)
#endif

/// The atomic operations on one 64-bit word, reached by its address.
///
/// ``AtomicCell`` keeps one word in its own object; an object that needs several atomic fields
/// keeps them in one stored tuple and hands out an `AtomicWord` for each (as
/// `SubscriptionStatus` does), which saves an allocation per field. The object that holds the
/// word must outlive every use of its `AtomicWord`.
@usableFromInline
package struct AtomicWord<Value: AtomicWordRepresentable> {
  @usableFromInline let _address: UnsafeMutablePointer<UInt64>

  @inlinable
  package init(_ address: UnsafeMutablePointer<UInt64>) {
    _address = address
  }

  @inlinable
  package func load(ordering: AtomicOrdering) -> Value {
    let word =
      switch ordering {
      case .relaxed: sc_load_relaxed(_address)
      case .acquiring, .acquiringAndReleasing: sc_load_acquire(_address)
      case .releasing, .sequentiallyConsistent: sc_load_seq_cst(_address)
      }
    return Value(atomicWord: word)
  }

  @inlinable
  package func store(_ value: Value, ordering: AtomicOrdering) {
    switch ordering {
    case .relaxed: sc_store_relaxed(_address, value.atomicWord)
    case .releasing, .acquiringAndReleasing: sc_store_release(_address, value.atomicWord)
    case .acquiring, .sequentiallyConsistent: sc_store_seq_cst(_address, value.atomicWord)
    }
  }

  @inlinable
  package func exchange(_ value: Value, ordering: AtomicOrdering) -> Value {
    let old =
      switch ordering {
      case .relaxed: sc_exchange_relaxed(_address, value.atomicWord)
      case .acquiring: sc_exchange_acquire(_address, value.atomicWord)
      case .releasing: sc_exchange_release(_address, value.atomicWord)
      case .acquiringAndReleasing: sc_exchange_acq_rel(_address, value.atomicWord)
      case .sequentiallyConsistent: sc_exchange_seq_cst(_address, value.atomicWord)
      }
    return Value(atomicWord: old)
  }
}

extension AtomicWord where Value: FixedWidthInteger {
  @inlinable
  @discardableResult
  package func add(_ delta: Value, ordering: AtomicOrdering) -> (oldValue: Value, newValue: Value) {
    let word = delta.atomicWord
    let old =
      switch ordering {
      case .relaxed: sc_fetch_add_relaxed(_address, word)
      case .acquiring: sc_fetch_add_acquire(_address, word)
      case .releasing: sc_fetch_add_release(_address, word)
      case .acquiringAndReleasing: sc_fetch_add_acq_rel(_address, word)
      case .sequentiallyConsistent: sc_fetch_add_seq_cst(_address, word)
      }
    let oldValue = Value(atomicWord: old)
    return (oldValue, oldValue &+ delta)
  }
}

extension Bool: AtomicWordRepresentable {
  @inlinable package init(atomicWord: UInt64) { self = atomicWord != 0 }
  @inlinable package var atomicWord: UInt64 { self ? 1 : 0 }
}

extension Int: AtomicWordRepresentable {
  @inlinable package init(atomicWord: UInt64) { self = Int(truncatingIfNeeded: atomicWord) }
  @inlinable package var atomicWord: UInt64 { UInt64(truncatingIfNeeded: self) }
}

extension UInt: AtomicWordRepresentable {
  @inlinable package init(atomicWord: UInt64) { self = UInt(truncatingIfNeeded: atomicWord) }
  @inlinable package var atomicWord: UInt64 { UInt64(truncatingIfNeeded: self) }
}

extension UInt64: AtomicWordRepresentable {
  @inlinable package init(atomicWord: UInt64) { self = atomicWord }
  @inlinable package var atomicWord: UInt64 { self }
}
