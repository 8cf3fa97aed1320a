import Statecraft

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Ends the exit test's child process that calls it if that process runs longer than `seconds`.
///
/// A suite's ``TimeBound`` does not reach an exit test: the test waits for its child process, so
/// a child that hangs (a misuse check that no longer stops the process, a deadlock it leaves
/// behind) would hang the whole run. Each exit test calls this first in its body; `SIGALRM` then
/// ends a hung child, and the test's expectations on the exit status and the output fail.
///
/// - Parameter seconds: The child's time limit; by default ``Interval/patience``, as the limit
///   only catches a hang.
public func limitThisChildProcess(
  toSeconds seconds: UInt32 = UInt32(Interval.patience.nanoseconds / 1_000_000_000)
) {
  _ = alarm(seconds)
}
