// swift-tools-version:6.2
import PackageDescription

let package = Package(
  name: "Films",
  platforms: [.macOS(.v12), .iOS(.v15)],
  dependencies: [
    .package(url: "https://github.com/statecraft/statecraft.git", branch: "main")
  ],
  targets: [
    .executableTarget(
      name: "Films",
      dependencies: [
        .product(name: "Statecraft", package: "statecraft"),
        .product(name: "StatecraftEntities", package: "statecraft"),
        .product(name: "StatecraftTools", package: "statecraft"),
      ],
      resources: [.copy("Resources/films.json")]
    ),
    .testTarget(
      name: "FilmsTests",
      dependencies: [
        "Films", .product(name: "StatecraftTesting", package: "statecraft"),
      ]
    ),
  ]
)
