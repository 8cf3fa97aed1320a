// swift-tools-version:6.2
import PackageDescription

// ReSwift 6.1.1 and ReSwift-Thunk 2.0.1, measured beside Statecraft in the same process when both
// variables name local checkouts (`Benchmarks/reswift-checkout` makes them); never otherwise.
let reSwift = Context.environment["STATECRAFT_RESWIFT"].flatMap { $0.isEmpty ? nil : $0 }
let reSwiftThunk = Context.environment["STATECRAFT_RESWIFT_THUNK"].flatMap { $0.isEmpty ? nil : $0 }
let sideBySide = reSwift.flatMap { reSwift in reSwiftThunk.map { (reSwift, $0) } }

// The benchmarks live in their own package so that the library stays dependency-free.
let package = Package(
  name: "StatecraftBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "Statecraft", path: ".."),
    .package(
      url: "https://github.com/ordo-one/benchmark",
      exact: "1.38.1",
      traits: ["MallocInterposer"]
    ),
  ],
  targets: [
    .executableTarget(
      name: "StoreBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "Statecraft", package: "Statecraft"),
        .product(name: "StatecraftInspector", package: "Statecraft"),
        .product(name: "StatecraftTools", package: "Statecraft"),
        .product(name: "StatecraftEntities", package: "Statecraft"),
      ],
      path: "Benchmarks/StoreBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    // `swift run -c release --package-path Benchmarks main-queue-latency`: how long the main
    // queue is held while another thread dispatches (C14).
    .executableTarget(
      name: "main-queue-latency",
      dependencies: [.product(name: "Statecraft", package: "Statecraft")],
      path: "Probes/MainQueueLatency"
    ),
  ],
  swiftLanguageModes: [.v6]
)

if let (reSwift, reSwiftThunk) = sideBySide {
  package.dependencies += [.package(path: reSwift), .package(path: reSwiftThunk)]
  let benchmarks = package.targets.first { $0.name == "StoreBenchmarks" }
  benchmarks?.dependencies += [
    .product(name: "ReSwift", package: "ReSwift"),
    .product(name: "ReSwiftThunk", package: "ReSwift-Thunk"),
  ]
  benchmarks?.swiftSettings = [.define("STATECRAFT_RESWIFT")]
}
