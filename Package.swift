// swift-tools-version:6.2
import PackageDescription

let package = Package(
  name: "Statecraft",
  // Docs/Platforms.md lists every API the products use that needs more than this floor.
  platforms: [
    .macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1),
  ],
  products: [
    .library(name: "Statecraft", targets: ["Statecraft"]),
    .library(name: "StatecraftTesting", targets: ["StatecraftTesting"]),
    .library(name: "StatecraftObservation", targets: ["StatecraftObservation"]),
    .library(name: "StatecraftTools", targets: ["StatecraftTools"]),
    .library(name: "StatecraftInspector", targets: ["StatecraftInspector"]),
    .library(name: "StatecraftEntities", targets: ["StatecraftEntities"]),
    .executable(name: "counter", targets: ["Counter"]),
    .executable(name: "films", targets: ["Films"]),
    .executable(name: "inspect", targets: ["Inspect"]),
    .executable(name: "search", targets: ["Search"]),
    .executable(name: "todo", targets: ["Todo"]),
  ],
  targets: [
    // The engine's atomics: compiler builtins, because Synchronization.Atomic needs iOS 18.
    .target(name: "StatecraftAtomics"),
    // What the products share below the core: the lock, atomics, the main-queue check and the
    // clock. Not a product: `package` API only, the standard library and Dispatch only.
    .target(name: "StatecraftPrimitives", dependencies: ["StatecraftAtomics"]),
    .target(
      name: "Statecraft", dependencies: ["StatecraftAtomics", "StatecraftPrimitives"],
      swiftSettings: [.enableUpcomingFeature("ImmutableWeakCaptures")]),
    .target(
      name: "StatecraftTesting",
      dependencies: ["Statecraft", "StatecraftPrimitives", "StatecraftTools"]),
    // Observation and Combine bridges: the core imports only the standard library, Dispatch and
    // Synchronization.
    .target(name: "StatecraftObservation", dependencies: ["Statecraft"]),
    // Logging and persistence need Foundation (files, JSON, dates); the core does not.
    .target(name: "StatecraftTools", dependencies: ["Statecraft", "StatecraftPrimitives"]),
    // What `inspect` shows and writes from a recording or a live app: the pages, the Swift test
    // writer and the live session. Apps that record or stream to the inspector link
    // StatecraftTools only.
    .target(
      name: "StatecraftInspector",
      dependencies: ["Statecraft", "StatecraftPrimitives", "StatecraftTools"]),
    // Normalized entity collections for state: the standard library only, like the core.
    .target(name: "StatecraftEntities", dependencies: ["Statecraft"]),
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
    .target(
      name: "TodoModel",
      dependencies: ["Statecraft", "StatecraftTools"],
      path: "Examples/TodoModel"
    ),
    .executableTarget(
      name: "Todo",
      dependencies: ["Statecraft", "StatecraftTools", "TodoModel"],
      path: "Examples/Todo"
    ),
    .executableTarget(
      name: "Search",
      dependencies: ["Statecraft"],
      path: "Examples/Search",
      resources: [.copy("Resources/characters.txt")]
    ),
    // `swift run inspect`: any app's recordings, and a running app live. Part of what users
    // install, so it depends on the library products only, and the primitives they share.
    .executableTarget(
      name: "Inspect",
      dependencies: ["StatecraftInspector", "StatecraftPrimitives", "StatecraftTools"]),
    .executableTarget(
      name: "Films",
      dependencies: ["Statecraft", "StatecraftEntities", "StatecraftTools"],
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
      dependencies: ["Statecraft", "StatecraftTesting", "StatecraftEntities"],
      path: "Tests/ClientMainActor",
      // What a new Xcode app target sets: default main-actor isolation and "Approachable
      // Concurrency" (the upcoming features below).
      swiftSettings: [
        .defaultIsolation(MainActor.self),
        .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
        .enableUpcomingFeature("InferIsolatedConformances"),
      ]
    ),
    // Tests that `swift run inspect SESSION --swift-test NAME` wrote from the examples'
    // recordings in Examples/Inspect/Sessions; InspectorTests checks they are current.
    .testTarget(
      name: "GeneratedSessionTests",
      dependencies: [
        "Statecraft", "StatecraftTesting", "StatecraftTools", "CounterModel", "TodoModel",
      ],
      path: "Tests/GeneratedSessionTests"
    ),
    // What every Swift Testing suite here shares: a time limit that works below macOS 13.
    .target(
      name: "StatecraftTestSupport", dependencies: ["Statecraft", "StatecraftPrimitives"],
      path: "Tests/Support"),
    .testTarget(
      name: "StatecraftToolsTests",
      dependencies: [
        "Statecraft", "StatecraftInspector", "StatecraftPrimitives", "StatecraftTools",
        "StatecraftTesting", "StatecraftTestSupport",
      ],
      resources: [.copy("Fixtures")]
    ),
    .testTarget(
      name: "StatecraftEntitiesTests",
      dependencies: [
        "StatecraftEntities", "Statecraft", "StatecraftTesting", "StatecraftTools",
        "StatecraftTestSupport",
      ]
    ),
    .testTarget(
      name: "StatecraftTestingTests",
      dependencies: ["Statecraft", "StatecraftTesting", "StatecraftTestSupport"]
    ),
    .testTarget(
      name: "StatecraftTests",
      dependencies: [
        "Statecraft", "StatecraftInspector", "StatecraftPrimitives", "StatecraftTesting",
        "StatecraftObservation", "StatecraftTestSupport", "ClientFixture",
        "ClientMainActorFixture", "Counter",
        "CounterModel", "Films", "Inspect", "Search", "Todo", "TodoModel",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
