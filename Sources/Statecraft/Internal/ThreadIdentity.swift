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

/// A number that identifies the calling thread among the threads alive now; never 0.
@inlinable
func currentThreadID() -> UInt {
  #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
  #else
    UInt(pthread_self())
  #endif
}
