// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "preferences",
    products: [
        .library(name: "PrefsPlist", targets: ["PrefsPlist"]),
        .executable(name: "plutil", targets: ["plutil"]),
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
            name: "PrefsTestSupport",
            dependencies: ["PrefsPlist"]
        ),
        .testTarget(
            name: "PrefsPlistTests",
            dependencies: ["PrefsPlist", "PrefsTestSupport"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["PrefsTestSupport", "plutil"]
        ),
        .target(name: "PrefsStore", dependencies: ["PrefsPlist"]),
        .executableTarget(name: "PrefsStoreFixture", dependencies: ["PrefsStore"]),
        .testTarget(name: "PrefsStoreTests", dependencies: ["PrefsStore", "PrefsTestSupport", "PrefsStoreFixture"]),
    ],
    swiftLanguageModes: [.v6]
)
