// swift-tools-version:6.2
import PackageDescription

let package = Package(
  name: "Statecraft",
  platforms: [
    // Mutex and Atomic (Synchronization) set the floor on Apple platforms.
    .macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2),
  ],
  products: [
    .library(name: "Statecraft", targets: ["Statecraft"]),
    .library(name: "StatecraftTesting", targets: ["StatecraftTesting"]),
    .library(name: "StatecraftObservation", targets: ["StatecraftObservation"]),
    .library(name: "StatecraftTools", targets: ["StatecraftTools"]),
    .executable(name: "counter", targets: ["Counter"]),
    .executable(name: "films", targets: ["Films"]),
  ],
  targets: [
    .target(name: "Statecraft"),
    .target(name: "StatecraftTesting", dependencies: ["Statecraft"]),
    // Observation and Combine bridges: the core imports only the standard library, Dispatch and
    // Synchronization.
    .target(name: "StatecraftObservation", dependencies: ["Statecraft"]),
    // Logging and persistence need Foundation (files, JSON, dates); the core does not.
    .target(name: "StatecraftTools", dependencies: ["Statecraft"]),
    .executableTarget(
      name: "Counter",
      dependencies: ["Statecraft"],
      path: "Examples/Counter"
    ),
    .executableTarget(
      name: "Films",
      dependencies: ["Statecraft"],
      path: "Examples/Films",
      resources: [.copy("Resources/films.json")]
    ),
    // Client fixtures: they only have to compile. Each holds the code a Swift 6 app writes.
    .target(
      name: "ClientFixture",
      dependencies: ["Statecraft"],
      path: "Tests/Client"
    ),
    .target(
      name: "ClientMainActorFixture",
      dependencies: ["Statecraft"],
      path: "Tests/ClientMainActor",
      swiftSettings: [.defaultIsolation(MainActor.self)]
    ),
    .testTarget(
      name: "StatecraftToolsTests",
      dependencies: ["Statecraft", "StatecraftTools"],
      resources: [.copy("Fixtures")]
    ),
    .testTarget(
      name: "StatecraftTestingTests",
      dependencies: ["Statecraft", "StatecraftTesting"]
    ),
    .testTarget(
      name: "StatecraftTests",
      dependencies: [
        "Statecraft", "StatecraftTesting", "StatecraftObservation", "ClientFixture",
        "ClientMainActorFixture", "Counter",
        "Films",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
