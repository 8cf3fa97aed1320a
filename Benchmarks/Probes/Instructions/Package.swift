// swift-tools-version:6.0
// Instructions per operation of the engine's hot rows, counted with callgrind; built by
// `Benchmarks/instructions` against the checkout named in STATECRAFT_DIR (default: this one),
// so that two checkouts compare in the same run.
import Foundation
import PackageDescription

let dir = ProcessInfo.processInfo.environment["STATECRAFT_DIR"] ?? "../../.."
let name = URL(fileURLWithPath: dir).standardizedFileURL.lastPathComponent
let package = Package(
  name: "InstructionsProbe",
  platforms: [.macOS(.v14)],
  dependencies: [.package(path: dir)],
  targets: [
    .executableTarget(
      name: "InstructionsProbe",
      dependencies: [.product(name: "Statecraft", package: name)])
  ]
)
