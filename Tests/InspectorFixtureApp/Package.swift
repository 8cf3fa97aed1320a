// swift-tools-version:6.2
import PackageDescription

// An app the inspector has never seen, outside the root package as a user's app is: its own
// package that depends on Statecraft by path. `.ci/inspector-app` records a session with it,
// has `inspect --swift-test` write a test into its test target and runs that test here, and
// `.ci/inspector-live` drives it from the inspector's page in a browser.
let package = Package(
  name: "InspectorFixtureApp",
  platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
  dependencies: [.package(name: "Statecraft", path: "../..")],
  targets: [
    .target(
      name: "NotesCore",
      dependencies: [
        .product(name: "Statecraft", package: "Statecraft"),
        .product(name: "StatecraftTools", package: "Statecraft"),
      ]
    ),
    .executableTarget(
      name: "NotesApp",
      dependencies: [
        "NotesCore",
        .product(name: "Statecraft", package: "Statecraft"),
        .product(name: "StatecraftTools", package: "Statecraft"),
      ]
    ),
    .testTarget(
      name: "NotesCoreTests",
      dependencies: [
        "NotesCore",
        .product(name: "StatecraftTesting", package: "Statecraft"),
        .product(name: "StatecraftTools", package: "Statecraft"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
