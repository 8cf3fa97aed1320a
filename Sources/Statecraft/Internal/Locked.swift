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

// Inlinable, as all the dispatch path calls (Benchmarks/README.md, "Why the engine is
// inlinable").

/// The platform's mutex: `os_unfair_lock` on Apple platforms, `pthread_mutex_t` elsewhere.
///
/// The store uses this rather than `Synchronization.Mutex` because on Linux `Mutex` locks with
/// futexes from uninstrumented code, so ThreadSanitizer cannot see its ordering and reports
/// every access it guards as a race. The platform mutex is intercepted by ThreadSanitizer.
@usableFromInline
final class Lock: @unchecked Sendable {
  // @unchecked Sendable: the pointer is set once in init and the _mutex it points to is made to
  // be shared between threads.
  #if canImport(Darwin)
    @usableFromInline typealias Primitive = os_unfair_lock
  #else
    @usableFromInline typealias Primitive = pthread_mutex_t
  #endif

  @usableFromInline let _mutex = UnsafeMutablePointer<Primitive>.allocate(capacity: 1)

  @usableFromInline
  init() {
    Self.initialize(_mutex)
  }

  deinit {
    Self.destroy(_mutex)
    _mutex.deallocate()
  }

  @inlinable
  func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
    Self.lock(_mutex)
    defer { Self.unlock(_mutex) }
    return try body()
  }

  @usableFromInline
  static func initialize(_ mutex: UnsafeMutablePointer<Primitive>) {
    #if canImport(Darwin)
      mutex.initialize(to: os_unfair_lock())
    #else
      mutex.initialize(to: pthread_mutex_t())
      pthread_mutex_init(mutex, nil)
    #endif
  }

  @usableFromInline
  static func destroy(_ mutex: UnsafeMutablePointer<Primitive>) {
    #if !canImport(Darwin)
      pthread_mutex_destroy(mutex)
    #endif
    mutex.deinitialize(count: 1)
  }

  // Sleeps at once when the mutex is held, as both platform mutexes do. A spin before sleeping
  // made 4 threads dispatching to one store on 2 cores 1.3-1.7× slower (Benchmarks/README.md,
  // n): the spinning thread took the lock at each release, so the lock and the state moved
  // between cores on every dispatch, where a sleeping waiter lets the holder run on.
  @inlinable
  static func lock(_ mutex: UnsafeMutablePointer<Primitive>) {
    #if canImport(Darwin)
      os_unfair_lock_lock(mutex)
    #else
      pthread_mutex_lock(mutex)
    #endif
  }

  @inlinable
  static func unlock(_ mutex: UnsafeMutablePointer<Primitive>) {
    #if canImport(Darwin)
      os_unfair_lock_unlock(mutex)
    #else
      pthread_mutex_unlock(mutex)
    #endif
  }
}

/// A value that is only read and written while holding its own lock.
///
/// The value and the platform mutex share one heap object (a `ManagedBuffer`): a `Locked` costs
/// one allocation, where a class holding a ``Lock`` and a pointer to the value cost four (the
/// object, the lock, the mutex, the value), which a thunk run paid for its links on every run.
/// The value is reached through a pointer: as a stored `var` of a class, every `withLock` would
/// also pay for a run-time exclusivity check, which the lock makes redundant.
@usableFromInline
struct Locked<Value> {
  @usableFromInline let _buffer: ManagedBuffer<Value, Lock.Primitive>

  @inlinable
  init(_ value: Value) {
    _buffer = _LockedBuffer<Value>.create(minimumCapacity: 1) { buffer in
      buffer.withUnsafeMutablePointerToElements { Lock.initialize($0) }
      return value
    }
  }

  @inlinable
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    try _buffer.withUnsafeMutablePointers { value, mutex in
      Lock.lock(mutex)
      defer { Lock.unlock(mutex) }
      return try body(&value.pointee)
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
