// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "preferences",
    products: [
        .library(name: "PrefsPlist", targets: ["PrefsPlist"]),
        .executable(name: "plutil", targets: ["plutil"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CPrefsXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CPrefsSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .target(
            name: "PrefsPlist",
            dependencies: ["CPrefsXML2"]
        ),
        .executableTarget(
            name: "plutil",
            dependencies: ["PrefsPlist"]
        ),
        .target(
            name: "PrefsWire",
            dependencies: ["PrefsPlist"]
        ),
        .target(
            name: "PrefsTestSupport",
            dependencies: ["PrefsPlist"]
        ),
        .testTarget(
            name: "PrefsPlistTests",
            dependencies: ["PrefsPlist", "PrefsTestSupport"]
        ),
        .testTarget(
            name: "PrefsWireTests",
            dependencies: ["PrefsWire", "PrefsTestSupport"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["PrefsTestSupport", "plutil"]
        ),
        .target(
            name: "PrefsSystemd",
            dependencies: [
                "CPrefsSystemd",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "PrefsSystemdFixture",
            dependencies: ["PrefsSystemd"]
        ),
        .testTarget(
            name: "PrefsSystemdTests",
            dependencies: ["PrefsSystemd", "PrefsTestSupport", "PrefsSystemdFixture"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
