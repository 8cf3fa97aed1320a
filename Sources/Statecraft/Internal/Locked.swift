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
  // @unchecked Sendable: the pointer is set once in init and the mutex it points to is made to
  // be shared between threads.
  #if canImport(Darwin)
    @usableFromInline let mutex = UnsafeMutablePointer<os_unfair_lock>.allocate(capacity: 1)
  #else
    @usableFromInline let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  #endif

  @usableFromInline
  init() {
    #if canImport(Darwin)
      mutex.initialize(to: os_unfair_lock())
    #else
      mutex.initialize(to: pthread_mutex_t())
      pthread_mutex_init(mutex, nil)
    #endif
  }

  deinit {
    #if !canImport(Darwin)
      pthread_mutex_destroy(mutex)
    #endif
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  @inlinable
  func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
    #if canImport(Darwin)
      os_unfair_lock_lock(mutex)
      defer { os_unfair_lock_unlock(mutex) }
    #else
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
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
  @usableFromInline let lock = Lock()
  @usableFromInline let value: UnsafeMutablePointer<Value>

  @usableFromInline
  init(_ value: Value) {
    self.value = .allocate(capacity: 1)
    self.value.initialize(to: value)
  }

  deinit {
    value.deinitialize(count: 1)
    value.deallocate()
  }

  @inlinable
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    try lock.withLock { try body(&value.pointee) }
  }
}

// Only for `Sendable` values, which the lock then hands from thread to thread. @unchecked: `value`
// is touched only inside `withLock`, which holds `lock`.
extension Locked: @unchecked Sendable where Value: Sendable {}
