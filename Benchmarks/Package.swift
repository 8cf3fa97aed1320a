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
      ],
      path: "Benchmarks/StoreBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
  ],
  swiftLanguageModes: [.v6]
)
