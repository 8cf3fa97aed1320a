import Foundation
import StatecraftTools

struct Saved: Codable, Equatable, Sendable {
  var name: String
  var values: [Int]
  var nested: [String: [Double]]
}

private let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
  "statecraft-fuzz-\(getpid())")

/// Restores arbitrary bytes as a saved state: it must never crash; a bad file must be
/// reported and moved aside.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let file = folder.appendingPathComponent("state.json")
  try? Data(bytes: bytes, count: count).write(to: file)
  let persistence = StatePersistence<Int, Saved>(
    file: file, schemaVersion: 2,
    migrations: [1: { $0 }],
    maximumFileSize: 64 * 1_024, select: { _ in Saved(name: "", values: [], nested: [:]) })
  if case .failure(let error) = persistence.restore(), let kept = error.movedAsideTo {
    try? FileManager.default.removeItem(at: kept)
  }
  try? FileManager.default.removeItem(at: file)
  return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// SwiftPM links an executable's entry point under this name; hand over to libFuzzer.
@_cdecl("PersistenceFuzzer_main")
public func fuzzerMain(
  _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
  var argc = argc
  var argv = argv
  return runDriver(&argc, &argv) { fuzz($0, $1) }
}
