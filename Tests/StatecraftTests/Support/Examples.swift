import Dispatch
import Foundation
import Statecraft
import StatecraftTestSupport
import Testing

/// The folder the example executables are built into: the one this test bundle is in.
let builtProducts = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

/// Runs an example executable with `input` on standard input and returns what it printed,
/// expecting it to exit with status 0.
func runExample(
  _ name: String, arguments: [String] = [], input: String = ""
) async throws -> String {
  let run = try await runExampleToEnd(name, arguments: arguments, input: input)
  #expect(run.status == 0, "\(name) exited with \(run.status): \(run.errors)")
  return run.output
}

/// What an example printed on each stream, and its exit status.
struct ExampleRun {
  let output: String
  let errors: String
  let status: Int32
}

/// Runs an example executable with `input` on standard input and returns what it printed and how
/// it exited, whatever the status.
///
/// The example runs, and is waited for, on a thread of this function's own: the test's task
/// awaits it without holding a thread of the cooperative pool, which every other test needs.
func runExampleToEnd(
  _ name: String, arguments: [String] = [], input: String = ""
) async throws -> ExampleRun {
  let run = await onItsOwnThread {
    Result { try runExampleBlocking(name, arguments: arguments, input: input) }
  }
  guard let run else { throw ExampleDidNotEnd(name: name) }
  return try run.get()
}

/// An example that a test waited for longer than ``Interval/patience``.
struct ExampleDidNotEnd: Error {
  let name: String
}

private func runExampleBlocking(_ name: String, arguments: [String], input: String) throws
  -> ExampleRun
{
  let process = Process()
  process.executableURL = builtProducts.appendingPathComponent(name)
  process.environment = exampleEnvironment
  process.arguments = arguments
  let stdin = Pipe()
  let stdout = Pipe()
  let stderr = Pipe()
  process.standardInput = stdin
  process.standardOutput = stdout
  process.standardError = stderr
  try process.run()
  let watchdog = terminate(process, after: .nanoseconds(Int(Interval.patience.nanoseconds)))
  defer { watchdog.cancel() }
  stdin.fileHandleForWriting.write(Data(input.utf8))
  try stdin.fileHandleForWriting.close()
  // Standard error is read on another thread, so that neither pipe fills while the other waits.
  let errors = Guarded(Data())
  let readErrors = DispatchGroup()
  DispatchQueue.global().async(group: readErrors) {
    let data = stderr.fileHandleForReading.readDataToEndOfFile()
    errors.withLock { $0 = data }
  }
  let output = stdout.fileHandleForReading.readDataToEndOfFile()
  readErrors.wait()
  process.waitUntilExit()
  return ExampleRun(
    output: String(decoding: output, as: UTF8.self),
    errors: String(decoding: errors.withLock { $0 }, as: UTF8.self),
    status: process.terminationStatus)
}

/// The environment an example runs in: this process's, with LeakSanitizer's check off.
///
/// Under `--sanitize=address` an example that exits with objects alive in globals (a store, a
/// persistence writer, libcurl's state) would be reported, and the report ends the process
/// with `_exit`, which drops what it printed but had not flushed. Leaks are checked in the test
/// process, where stores come and go.
let exampleEnvironment: [String: String] = {
  var environment = ProcessInfo.processInfo.environment
  let options = environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
  environment["ASAN_OPTIONS"] = options + "detect_leaks=0"
  return environment
}()

/// Ends `process` if it still runs after `limit`, so that an example that hangs fails its test
/// (with status 15) instead of holding the test run forever.
func terminate(_ process: Process, after limit: DispatchTimeInterval) -> DispatchWorkItem {
  let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
  DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: watchdog)
  return watchdog
}
