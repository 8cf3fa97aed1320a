import Dispatch
import StatecraftAtomics

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// The package's mutex: `os_unfair_lock` on Apple platforms, a word taken with one atomic
/// operation on Linux (`sc_word_lock`, in StatecraftAtomics), `pthread_mutex_t` elsewhere, as
/// functions on its address; ``Locked`` keeps one beside its value.
///
/// Not `Synchronization.Mutex`: on Linux it locks with futexes from uninstrumented code, so
/// ThreadSanitizer cannot see its ordering and reports every access it guards as a race. The
/// Linux word is the same kind of lock in C compiled with the package, whose atomics
/// ThreadSanitizer instruments, taken and let go inline rather than through glibc's calls
/// (Benchmarks/README.md, workloads a, d and n).
@usableFromInline
enum Lock {
  #if canImport(Darwin)
    @usableFromInline typealias Primitive = os_unfair_lock
  #elseif os(Linux)
    @usableFromInline typealias Primitive = UInt32
  #else
    @usableFromInline typealias Primitive = pthread_mutex_t
  #endif

  @inlinable
  static func initialize(_ mutex: UnsafeMutablePointer<Primitive>) {
    #if canImport(Darwin)
      mutex.initialize(to: os_unfair_lock())
    #elseif os(Linux)
      mutex.initialize(to: 0)
    #else
      mutex.initialize(to: pthread_mutex_t())
      pthread_mutex_init(mutex, nil)
    #endif
  }

  @usableFromInline
  static func destroy(_ mutex: UnsafeMutablePointer<Primitive>) {
    #if !canImport(Darwin) && !os(Linux)
      pthread_mutex_destroy(mutex)
    #endif
    mutex.deinitialize(count: 1)
  }

  // Sleeps at once when the mutex is held, as all three do. A spinning waiter takes the lock at
  // each release, so the lock and the state move between cores on every dispatch; a sleeping
  // waiter lets the holder run on (Benchmarks/README.md, workload n).
  @inlinable
  static func lock(_ mutex: UnsafeMutablePointer<Primitive>) {
    #if canImport(Darwin)
      os_unfair_lock_lock(mutex)
    #elseif os(Linux)
      sc_word_lock(mutex)
    #else
      pthread_mutex_lock(mutex)
    #endif
  }

  @inlinable
  static func unlock(_ mutex: UnsafeMutablePointer<Primitive>) {
    #if canImport(Darwin)
      os_unfair_lock_unlock(mutex)
    #elseif os(Linux)
      sc_word_unlock(mutex)
    #else
      pthread_mutex_unlock(mutex)
    #endif
  }
}

/// A value that is only read and written while holding its own lock.
///
/// `Locked<Void>` is a plain lock. The package's one lock: the store's, the thunk runner's and
/// the tools'.
///
/// The value and the platform mutex share one heap object (a `ManagedBuffer`): one allocation.
/// The value is reached through a pointer: as a stored `var` of a class, every `withLock` would
/// also pay for a run-time exclusivity check, which the lock makes redundant.
@usableFromInline @frozen
package struct Locked<Value> {
  @usableFromInline let _buffer: ManagedBuffer<Value, Lock.Primitive>

  @inlinable
  package init(_ value: Value) {
    self.init { value }
  }

  /// Makes the value in place: a large one given to ``init(_:)`` is copied into the lock's
  /// storage, through out-of-line copy functions.
  @inlinable
  package init(making make: () -> Value) {
    _buffer = _LockedBuffer<Value>.create(minimumCapacity: 1) { buffer in
      buffer.withUnsafeMutablePointerToElements { Lock.initialize($0) }
      return make()
    }
  }

  @inlinable
  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    try _buffer.withUnsafeMutablePointers { value, mutex in
      Lock.lock(mutex)
      defer { Lock.unlock(mutex) }
      return try body(&value.pointee)
    }
  }
}

extension Locked where Value == Void {
  /// Runs `body` holding the lock: a plain lock, whose (empty) value is never accessed, so that
  /// ThreadSanitizer sees no access to it.
  @inlinable
  package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
    try _buffer.withUnsafeMutablePointerToElements { mutex in
      Lock.lock(mutex)
      defer { Lock.unlock(mutex) }
      return try body()
    }
  }
}

/// The storage of a ``Locked``: its value as the header, the mutex as the one element.
@usableFromInline
final class _LockedBuffer<Value>: ManagedBuffer<Value, Lock.Primitive> {
  deinit {
    withUnsafeMutablePointerToElements { Lock.destroy($0) }
  }
}

// Only for `Sendable` values, which the lock then hands from thread to thread. @unchecked: the
// value is touched only inside `withLock`, which holds the mutex beside it.
extension Locked: @unchecked Sendable where Value: Sendable {}

/// An object made often, in one allocation: an atomic word of flags, constants, and a value
/// guarded by a lock it shares with the other records of its owner, not one of its own.
///
/// For a thunk's run: its flags are read on each of its dispatches without a lock, and its links
/// change under its runner's lock, which one run start and one run end take once each.
///
/// Invariant: `guarded` is touched only inside ``withGuarded(holding:_:)``, whose caller holds
/// the owner's lock and shows it by passing, `inout`, the value that lock guards. The word is
/// reached only through its address (``AtomicWord/init(firstStoredPropertyOf:)``).
package final class SharedLockRecord<Constants: Sendable, Guarded: Sendable>: @unchecked Sendable {
  // The first stored property: `flags` reaches it by address.
  @usableFromInline var _word: UInt64 = 0
  /// Set once, read without the lock.
  package let constants: Constants
  // Unchecked: the owner's lock already excludes other accesses, which a run-time exclusivity
  // check on each access would only repeat.
  @exclusivity(unchecked) @usableFromInline var _guarded: Guarded

  @inlinable
  package init(_ constants: Constants, _ guarded: Guarded) {
    self.constants = constants
    _guarded = guarded
  }

  /// The flags, read and changed atomically, with or without the owner's lock.
  @inlinable
  package var flags: AtomicWord<UInt64> { AtomicWord(firstStoredPropertyOf: self) }

  /// Runs `body` on the guarded value.
  ///
  /// Call it only while holding the owner's lock: `lockedValue` is the value that lock guards,
  /// `inout` as `Locked.withLock` hands it.
  @inlinable
  package func withGuarded<OwnerValue, Result>(
    holding lockedValue: inout OwnerValue, _ body: (inout Guarded) -> Result
  ) -> Result {
    body(&_guarded)
  }
}

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

/// Atomic 64-bit words in one allocation, usable on every system Statecraft supports.
///
/// `Synchronization.Atomic` needs macOS 15 and iOS 18. The operations are compiler builtins in
/// the `StatecraftAtomics` C module, which ThreadSanitizer instruments. Each word is reached only
/// through its address, as an ``AtomicWord``, so Swift's exclusivity checks never see it; the
/// words live in a `ManagedBuffer`'s elements, whose address is fixed while the buffer lives.
/// Copies share the words.
@usableFromInline @frozen
package struct AtomicWords: @unchecked Sendable {
  // @unchecked Sendable: the words are only read and written by the atomic operations of
  // `AtomicWord`.
  @usableFromInline let _buffer: ManagedBuffer<Void, UInt64>

  /// Makes `count` words, each 0.
  @inlinable
  package init(count: Int) {
    _buffer = .create(minimumCapacity: count) { buffer in
      buffer.withUnsafeMutablePointerToElements { $0.initialize(repeating: 0, count: count) }
    }
  }

  /// How many words there are: at least the count they were made with.
  @inlinable
  package var capacity: Int { _buffer.capacity }

  /// Names these words: copies share it, other words never have it while these are kept.
  @inlinable
  package var identity: ObjectIdentifier { ObjectIdentifier(_buffer) }

  /// The word at `index`, as a `Value`; usable while these words are kept.
  @inlinable
  package subscript<Value: AtomicWordRepresentable>(_ index: Int) -> AtomicWord<Value> {
    AtomicWord(_buffer.withUnsafeMutablePointerToElements { $0 + index })
  }
}

/// One atomic value in an allocation of its own, for code outside the engine.
@usableFromInline @frozen
package struct AtomicCell<Value: AtomicWordRepresentable>: Sendable {
  @usableFromInline let _words: AtomicWords

  @inlinable
  package init(_ value: Value) {
    _words = AtomicWords(count: 1)
    _atomic.store(value, ordering: .relaxed)
  }

  @inlinable
  var _atomic: AtomicWord<Value> { _words[0] }

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

/// The atomic operations on one 64-bit word, reached by its address.
///
/// Made by ``AtomicWords``, whose buffer must outlive every use of the word. The methods mirror
/// `Synchronization.Atomic`'s; each call's ordering is a literal, so the switch folds away once
/// inlined.
@usableFromInline @frozen
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

extension AtomicWord {
  /// The word that is `object`'s first stored property, for an object that would otherwise need
  /// an allocation of its own for it.
  ///
  /// `object`'s class, or the root class it descends from, must declare a `UInt64` first, which
  /// Swift code does not touch after `init`: a class's stored properties follow its header in the
  /// order they are declared, its superclass's first, which is where
  /// `_getUnsafePointerToStoredProperties` points (the standard library's way for swift-atomics'
  /// `ManagedAtomic`). Usable while `object` is kept.
  @inlinable
  package init(firstStoredPropertyOf object: AnyObject) {
    self.init(_getUnsafePointerToStoredProperties(object).assumingMemoryBound(to: UInt64.self))
  }
}

extension AtomicWord where Value == UInt64 {
  /// Sets the bits of `mask`; returns the word before.
  @inlinable
  @discardableResult
  package func setBits(_ mask: UInt64, ordering: AtomicOrdering) -> UInt64 {
    switch ordering {
    case .relaxed: sc_fetch_or_relaxed(_address, mask)
    case .acquiring, .releasing, .acquiringAndReleasing, .sequentiallyConsistent:
      sc_fetch_or_seq_cst(_address, mask)
    }
  }

  /// Clears the bits of `mask`; returns the word before.
  @inlinable
  @discardableResult
  package func clearBits(_ mask: UInt64, ordering: AtomicOrdering) -> UInt64 {
    switch ordering {
    case .relaxed: sc_fetch_and_relaxed(_address, ~mask)
    case .acquiring, .releasing, .acquiringAndReleasing, .sequentiallyConsistent:
      sc_fetch_and_seq_cst(_address, ~mask)
    }
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

/// A first-in, first-out queue that allocates nothing in a steady flow of pushes and pops.
///
/// It keeps its storage when it empties. A popped element is released at once.
@usableFromInline @frozen
package struct FIFO<Element> {
  @usableFromInline var _storage: [Element?] = []
  @usableFromInline var _head = 0

  @inlinable
  package init() {}

  @inlinable
  package var isEmpty: Bool { _head == _storage.count }

  @inlinable
  package var count: Int { _storage.count - _head }

  @inlinable
  package mutating func append(_ element: Element) {
    _storage.append(element)
  }

  /// Removes every element, keeping the storage.
  @inlinable
  package mutating func removeAll() {
    _storage.removeAll(keepingCapacity: true)
    _head = 0
  }

  @inlinable
  package mutating func popFirst() -> Element? {
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

/// A number that identifies the calling thread among the threads alive now; never 0.
@inlinable
package func currentThreadID() -> UInt {
  #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
  #else
    UInt(pthread_self())
  #endif
}

/// Whether the dispatch this thread made last left its store showing something other than the
/// present state: the action was held, or the store shows a past state (the live page's jump).
///
/// A thread-local flag (C11's `_Thread_local`, no allocation): the tool at the end of a
/// middleware chain sets it; a middleware before it clears it before calling `next` and reads it
/// after, so that a mark left by another store's dispatch on this thread is never read as its
/// own. The logging middleware skips a held action's line; the persistence middleware does not
/// save a state that is not the present.
package enum NotPresentMark {
  /// Marks the dispatch running on this thread.
  package static func set() { sc_set_not_present(1) }

  /// Clears the mark, before a middleware calls `next`.
  package static func clear() { sc_set_not_present(0) }

  /// Whether the dispatch since the last ``clear()`` was marked.
  package static var isSet: Bool { sc_not_present() != 0 }
}

/// Answers "is this code running on the main dispatch queue?".
///
/// On Linux an `async` `main` parks thread 1 in `dispatch_main()` and main-actor work runs on a
/// worker thread, so "is this the main thread" is the wrong question. A key set on
/// `DispatchQueue.main` is visible exactly while the main queue runs, on every platform.
@usableFromInline
package enum MainQueue {
  /// The address libdispatch knows the key by, the key object's, which is never released.
  private static let key: UInt = {
    let key = DispatchSpecificKey<UInt8>()
    DispatchQueue.main.setSpecific(key: key, value: 1)
    let address = UInt(bitPattern: Unmanaged.passRetained(key).toOpaque())
    sc_publish_main_queue_key(UInt64(address))
    return address
  }()

  @inlinable
  package static var isCurrent: Bool {
    var key = UInt(sc_main_queue_key())
    if key == 0 { key = publishedKey() }
    return sc_queue_has_specific(UnsafeRawPointer(bitPattern: key)) != 0
  }

  /// Sets the key on the main queue the first time, and returns its address.
  @usableFromInline
  static func publishedKey() -> UInt {
    key
  }

  /// Runs `body` on the main actor: now if this is the main queue, else as soon as it runs.
  @inlinable
  package static func onMainActor(_ body: @escaping @MainActor @Sendable () -> Void) {
    if isCurrent {
      MainActor.assumeIsolated { body() }
    } else {
      Task { @MainActor in body() }
    }
  }

  /// Returns what `body` makes on the main actor, a value that need not be `Sendable`, for a
  /// caller that uses it only on the main queue: now if this is the main queue, else waiting for
  /// the main queue to run it.
  @inlinable
  package static func makeOnMainActor<Value>(_ body: @MainActor () -> Value) -> Value {
    nonisolated(unsafe) var made: Value?
    syncOnMainActor { made = body() }
    guard let made else { preconditionFailure("the main actor made no value") }
    return made
  }

  /// Returns what `body` returns, run on the main actor: now if this is the main queue, else
  /// waiting for the main queue to run it.
  @inlinable
  package static func syncOnMainActor<Value: Sendable>(_ body: @MainActor () -> Value) -> Value {
    if isCurrent { return MainActor.assumeIsolated { body() } }
    return DispatchQueue.main.sync { MainActor.assumeIsolated { body() } }
  }
}

/// The monotonic clock the products read: `DispatchTime`, which every supported system has.
@usableFromInline
package enum MonotonicClock {
  /// Nanoseconds since an arbitrary start, never going back.
  @inlinable
  package static var now: UInt64 {
    DispatchTime.now().uptimeNanoseconds
  }
}

/// `==` for `Value` when it is `Equatable`, found at run time so that generic code gets
/// automatic skip-repeats too.
///
/// Inlinable, so that where `Value` is a concrete type the cast and the call are resolved when
/// compiling and the comparison is the type's own `==`.
@inlinable
package func dynamicEquality<Value>(of type: Value.Type) -> ((Value, Value) -> Bool)? {
  guard let equatable = type as? any Equatable.Type else { return nil }
  return equatable.sameTypeEquality(as: type)
}

extension Equatable {
  /// `==` usable where `Value` is only known to be `Self` at run time.
  @inlinable
  static func sameTypeEquality<Value>(as type: Value.Type) -> (Value, Value) -> Bool {
    precondition(Value.self == Self.self)
    // Value and Self are the same type, checked above, and both functions take their generic
    // arguments the same way (indirectly), so the cast of the function is an identity. Casting
    // the function, not the values, leaves a call with no copy of either.
    let equal: (Self, Self) -> Bool = { $0 == $1 }
    return unsafeBitCast(equal, to: ((Value, Value) -> Bool).self)
  }
}

/// The address of `object`, for an owner that keeps it alive and refers to it unretained: the
/// chain's box, the registry's entries during a round, the reducing mark.
@inlinable
package func address(of object: AnyObject) -> UInt {
  UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
}

/// Calls `body` with the object at `address`, borrowed: no retain and no release.
///
/// The caller guarantees that something else keeps the object alive for the call.
///
/// Always inlined: called from code that runs unspecialized, it would be passed `Object`'s
/// metadata, which for a generic class is looked up at run time on every call.
@inlinable @inline(__always)
package func withObject<Object: AnyObject, Result>(
  at address: UInt, as _: Object.Type, _ body: (Object) -> Result
) -> Result {
  Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
    ._withUnsafeGuaranteedRef(body)
}

/// `object` as an `Object`, without a check: the caller knows its dynamic type.
///
/// For an object that stores a call made only with itself (a subscription's entry and its
/// calls), or one whose type an identity check proved; a wrong type is undefined behaviour.
@inlinable
package func knownObject<Object: AnyObject>(_ object: AnyObject, as _: Object.Type) -> Object {
  unsafeDowncast(object, to: Object.self)
}

// MARK: - The type in an existential

/// The address of the type metadata of the existential at `existential`, read without copying
/// it: for an `any P` of one protocol that is not class-bound, such as `any Action`.
///
/// Such a container is three words of value buffer, then the metadata (Swift's ABI,
/// docs/ABI/TypeLayout.rst, "Existential Container Layout"): the same identity as
/// `ObjectIdentifier` of the opened type's.
@inlinable
package func typeAddress(ofExistentialAt existential: UnsafeRawPointer) -> UInt {
  existential.load(fromByteOffset: 3 * MemoryLayout<UInt>.size, as: UInt.self)
}

// MARK: - The value a step saw last

/// The value a subscription step saw last.
///
/// Kept in a buffer rather than a captured `var`: a captured `var` is checked for exclusive
/// access at run time on every notification, which costs more than the comparison it guards.
/// One allocation holds the object and the value. Only the main actor touches it, through the
/// one step that owns it.
///
/// The header holds a tag the step may keep beside the value (a memoized selector's computation
/// number) and whether a value is stored: the element is a `Value`, not a `Value?`, so that
/// freeing the buffer, code not specialized for `Value`, looks up no `Optional<Value>` at run
/// time.
@usableFromInline
package final class PreviousValue<Value>: ManagedBuffer<PreviousValueHeader, Value> {
  @inlinable
  package static func make() -> PreviousValue<Value> {
    let buffer = create(minimumCapacity: 1) { _ in PreviousValueHeader() }
    return unsafeDowncast(buffer, to: PreviousValue<Value>.self)
  }

  deinit {
    withUnsafeMutablePointers { header, value in
      if header.pointee.hasValue { value.deinitialize(count: 1) }
    }
  }

  /// Stores `value` and returns the value stored before it.
  @inlinable
  package func exchange(_ value: Value) -> Value? {
    withUnsafeMutablePointers { header, storage in
      guard header.pointee.hasValue else {
        storage.initialize(to: value)
        header.pointee.hasValue = true
        return nil
      }
      let previous = storage.move()
      storage.initialize(to: value)
      return previous
    }
  }

  /// Stores `tag` and returns the tag stored before it (0 at first).
  @inlinable
  package func exchangeTag(_ tag: Int) -> Int {
    withUnsafeMutablePointerToHeader { header in
      let previous = header.pointee.tag
      header.pointee.tag = tag
      return previous
    }
  }
}

/// A ``PreviousValue``'s header.
@usableFromInline @frozen
package struct PreviousValueHeader {
  @usableFromInline var tag = 0
  @usableFromInline var hasValue = false

  @inlinable
  package init() {}
}
