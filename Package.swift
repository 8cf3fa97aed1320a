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
    .executable(name: "inspect", targets: ["Inspect"]),
    .executable(name: "search", targets: ["Search"]),
    .executable(name: "todo", targets: ["Todo"]),
  ],
  targets: [
    .target(name: "Statecraft"),
    .target(name: "StatecraftTesting", dependencies: ["Statecraft", "StatecraftTools"]),
    // Observation and Combine bridges: the core imports only the standard library, Dispatch and
    // Synchronization.
    .target(name: "StatecraftObservation", dependencies: ["Statecraft"]),
    // Logging and persistence need Foundation (files, JSON, dates); the core does not.
    .target(name: "StatecraftTools", dependencies: ["Statecraft"]),
    .target(
      name: "CounterModel",
      dependencies: ["Statecraft", "StatecraftTools"],
      path: "Examples/CounterModel"
    ),
    .executableTarget(
      name: "Counter",
      dependencies: ["Statecraft", "StatecraftTools", "CounterModel"],
      path: "Examples/Counter"
    ),
    // UIKit and SwiftUI versions of the counter: empty modules where those frameworks are missing.
    .target(
      name: "CounterUIKit",
      dependencies: ["Statecraft", "CounterModel"],
      path: "Examples/CounterUIKit"
    ),
    .target(
      name: "CounterSwiftUI",
      dependencies: ["Statecraft", "StatecraftObservation", "CounterModel"],
      path: "Examples/CounterSwiftUI"
    ),
    .executableTarget(
      name: "Todo",
      dependencies: ["Statecraft", "StatecraftTools"],
      path: "Examples/Todo"
    ),
    .executableTarget(
      name: "Search",
      dependencies: ["Statecraft"],
      path: "Examples/Search",
      resources: [.copy("Resources/characters.txt")]
    ),
    .executableTarget(
      name: "Inspect",
      dependencies: ["Statecraft", "StatecraftTools", "CounterModel"],
      path: "Examples/Inspect"
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
      dependencies: ["Statecraft", "StatecraftTools", "StatecraftTesting"],
      resources: [.copy("Fixtures")]
    ),
    .testTarget(
      name: "StatecraftTestingTests",
      dependencies: ["Statecraft", "StatecraftTesting"]
    ),
    // A ReSwift app and its tests in the Swift 5 language mode, moved over by changing the
    // import: it must build without an edit. Deprecation warnings are its only warnings, from
    // the ReSwift API it uses that ReSwift deprecates too (Docs/ReSwiftDropIn.md lists them).
    .testTarget(
      name: "ReSwiftStyleTests",
      dependencies: ["Statecraft", "StatecraftTesting"],
      swiftSettings: [
        .swiftLanguageMode(.v5), .treatWarning("DeprecatedDeclaration", as: .warning),
      ]
    ),
    .testTarget(
      name: "StatecraftTests",
      dependencies: [
        "Statecraft", "StatecraftTesting", "StatecraftObservation", "ClientFixture",
        "ClientMainActorFixture", "Counter",
        "CounterModel", "Films", "Inspect", "Search", "Todo",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
