// swift-tools-version:6.2
import PackageDescription

// The Combine bridge (Sources/StatecraftObservation/Store+Combine.swift), compiled and tested
// where Combine does not exist: against OpenCombine, which has Combine's API. A package of its
// own, as the benchmarks are, so that the library keeps no dependency. `.ci/run` runs it.
let package = Package(
  name: "StatecraftCombineBridge",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
  dependencies: [
    .package(name: "Statecraft", path: "../.."),
    .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
  ],
  targets: [
    // The bridge's own source file, linked here, not copied.
    .target(
      name: "StatecraftCombine",
      dependencies: [
        .product(name: "Statecraft", package: "Statecraft"),
        .product(name: "OpenCombine", package: "OpenCombine"),
      ]
    ),
    .testTarget(
      name: "StatecraftCombineTests",
      dependencies: [
        "StatecraftCombine",
        .product(name: "Statecraft", package: "Statecraft"),
        .product(name: "OpenCombine", package: "OpenCombine"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
