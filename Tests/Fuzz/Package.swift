// swift-tools-version:6.2
import PackageDescription

// libFuzzer targets for the decoders that read files from disk. Not part of CI: run
// `Tests/Fuzz/run` (see README.md beside this file).
let package = Package(
  name: "StatecraftFuzz",
  platforms: [.macOS(.v15)],
  dependencies: [.package(name: "Statecraft", path: "../..")],
  targets: [
    .executableTarget(
      name: "RecordingFuzzer",
      dependencies: [
        .product(name: "StatecraftInspector", package: "Statecraft"),
        .product(name: "StatecraftTools", package: "Statecraft"),
      ],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])],
      linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
    ),
    .executableTarget(
      name: "PersistenceFuzzer",
      dependencies: [.product(name: "StatecraftTools", package: "Statecraft")],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])],
      linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
    ),
  ],
  swiftLanguageModes: [.v6]
)
