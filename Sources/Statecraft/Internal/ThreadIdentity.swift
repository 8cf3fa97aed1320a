#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

// Inlinable, as everything the dispatch path calls: called as library functions, these made a
// dispatch from another thread 878 instructions instead of 339 and a main-thread dispatch
// with one subscriber 2,020 instead of 1,099 (callgrind, Benchmarks/README.md, "Why the
// engine is inlinable").

/// A number that identifies the calling thread among the threads alive now; never 0.
@inlinable
func currentThreadID() -> UInt {
  #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
  #else
    UInt(pthread_self())
  #endif
}
