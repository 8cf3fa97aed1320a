// swift-tools-version:6.2
import PackageDescription

// A ReSwift app and its XCTest tests in the Swift 5 language mode, moved over by changing the
// import: it must build without an edit. Deprecation warnings are its only warnings, from the
// ReSwift API it uses that ReSwift deprecates too (the Migrating from ReSwift article lists
// them, and `.ci/reswift-app` allows exactly those). A package of its own, so that the
// project's own `swift test` builds without a warning a user did not cause.
let package = Package(
  name: "ReSwiftApp",
  platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
  dependencies: [.package(name: "Statecraft", path: "../..")],
  targets: [
    .testTarget(
      name: "ReSwiftStyleTests",
      dependencies: [
        .product(name: "Statecraft", package: "Statecraft"),
        .product(name: "StatecraftTesting", package: "Statecraft"),
      ],
      swiftSettings: [
        .swiftLanguageMode(.v5), .treatWarning("DeprecatedDeclaration", as: .warning),
        // Swift 6's inference, so that `reducer.handleAction` of a `Sendable` reducer value is a
        // `@Sendable` function, as ReSwift's tests pass it.
        .enableUpcomingFeature("InferSendableFromCaptures"),
      ]
    )
  ]
)
