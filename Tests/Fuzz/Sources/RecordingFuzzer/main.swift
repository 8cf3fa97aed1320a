import Foundation
import Statecraft
@_spi(Fuzzing) import StatecraftInspector
import StatecraftTools

enum FuzzAction: Action, Codable {
  case increment
  case add(Int)
  case rename(String)
}

private let registry: ActionRegistry = {
  var registry = ActionRegistry()
  registry.register(FuzzAction.self)
  return registry
}()

/// Reads arbitrary bytes as a recording, then as `inspect` and `inspect --live` use one: it
/// must never crash, only report problems.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  let data = Data(bytes: bytes, count: count)
  let recording = Recording(data: data, registry: registry)
  _ = recording.entries.count + recording.problems.count
  // The report, every step's state, the page and the test, without the app's code.
  FuzzingEntryPoints.inspect(data)
  // The same bytes as an app's connection to `inspect --live`.
  FuzzingEntryPoints.liveSession(data)
  return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// SwiftPM links an executable's entry point under this name; hand over to libFuzzer.
@_cdecl("RecordingFuzzer_main")
public func fuzzerMain(
  _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
  var argc = argc
  var argv = argv
  return runDriver(&argc, &argv) { fuzz($0, $1) }
}
