// swift-tools-version:6.2
import PackageDescription

// An app split as teams split one, with the settings a new Xcode app target has: a Core module
// (state, actions, reducers, thunks, the store) and an App module (the views), both with default
// main-actor isolation and "Approachable Concurrency". `.ci/two-module-app` builds it with
// warnings as errors and runs it: it dispatches from a detached task, a global queue and a thunk
// into a state of a million elements while the main queue is busy, and fails unless every action
// was reduced on the main queue, in order, and delivered. Then it records a session of the app,
// has `inspect --swift-test` write a test of it, and runs the app's tests with it.
let appSettings: [SwiftSetting] = [
  .defaultIsolation(MainActor.self),
  .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
  .enableUpcomingFeature("InferIsolatedConformances"),
]

let package = Package(
  name: "TwoModuleApp",
  platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
  dependencies: [.package(name: "Statecraft", path: "../..")],
  targets: [
    .target(
      name: "PodcastCore",
      dependencies: [
        .product(name: "Statecraft", package: "Statecraft"),
        .product(name: "StatecraftTools", package: "Statecraft"),
      ],
      swiftSettings: appSettings
    ),
    .executableTarget(
      name: "PodcastApp",
      dependencies: [
        "PodcastCore", .product(name: "Statecraft", package: "Statecraft"),
        .product(name: "StatecraftTools", package: "Statecraft"),
      ],
      swiftSettings: appSettings
    ),
    // The app's tests as a newcomer writes them, plain Swift Testing functions, and the test
    // `inspect --swift-test` generates from a recording of the app (Generated/, written by
    // `.ci/two-module-app`), with the same settings.
    .testTarget(
      name: "PodcastCoreTests",
      dependencies: [
        "PodcastCore", .product(name: "StatecraftTesting", package: "Statecraft"),
        .product(name: "StatecraftTools", package: "Statecraft"),
      ],
      swiftSettings: appSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
