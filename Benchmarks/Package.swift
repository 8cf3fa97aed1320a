// swift-tools-version:6.2
import PackageDescription

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
