#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

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
    @usableFromInline let _mutex = UnsafeMutablePointer<os_unfair_lock>.allocate(capacity: 1)
  #else
    @usableFromInline let _mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  #endif

  @usableFromInline
  init() {
    #if canImport(Darwin)
      _mutex.initialize(to: os_unfair_lock())
    #else
      _mutex.initialize(to: pthread_mutex_t())
      pthread_mutex_init(_mutex, nil)
    #endif
  }

  deinit {
    #if !canImport(Darwin)
      pthread_mutex_destroy(_mutex)
    #endif
    _mutex.deinitialize(count: 1)
    _mutex.deallocate()
  }

  @inlinable
  func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
    #if canImport(Darwin)
      os_unfair_lock_lock(_mutex)
      defer { os_unfair_lock_unlock(_mutex) }
    #else
      pthread_mutex_lock(_mutex)
      defer { pthread_mutex_unlock(_mutex) }
    #endif
    return try body()
  }
}

/// A value that is only read and written while holding its own ``Lock``.
///
/// The value sits behind a pointer: as a stored `var` of a class, every `withLock` would also
/// pay for a run-time exclusivity check, which the lock makes redundant.
@usableFromInline
final class Locked<Value> {
  @usableFromInline let _lock = Lock()
  @usableFromInline let _value: UnsafeMutablePointer<Value>

  @usableFromInline
  init(_ value: Value) {
    _value = .allocate(capacity: 1)
    _value.initialize(to: value)
  }

  deinit {
    _value.deinitialize(count: 1)
    _value.deallocate()
  }

  @inlinable
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    try _lock.withLock { try body(&_value.pointee) }
  }
}

// Only for `Sendable` values, which the lock then hands from thread to thread. @unchecked: `value`
// is touched only inside `withLock`, which holds `lock`.
extension Locked: @unchecked Sendable where Value: Sendable {}
