// swift-tools-version: 6.1
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

// The executables link every C library dynamically (libxml2, libsystemd, OpenSSL, libstdc++, glibc), so that a
// distribution's security updates of those libraries reach them; only the Swift runtime is static
// (scripts/build-release.sh, docs/PACKAGING.md). PREFERENCES_FULLY_STATIC=1 builds `defaults` and `plutil` fully
// static instead (Debian's static libxml2 needs ICU, zlib, liblzma and the C++ runtime at link time): not for
// distribution, only to measure what dynamic linking costs (docs/BENCHMARKS.md).
let fullyStaticInRelease: [LinkerSetting] =
    Context.environment["PREFERENCES_FULLY_STATIC"] != "1"
    ? []
    : [.unsafeFlags(["-static-executable"], .when(platforms: [.linux], configuration: .release))]
        + ["icuuc", "icudata", "z", "lzma", "stdc++", "m"].map {
            .linkedLibrary($0, .when(platforms: [.linux], configuration: .release))
        }

let package = Package(
    name: "preferences",
    products: [
        .library(name: "PrefsPlist", targets: ["PrefsPlist"]),
        .library(name: "PrefsStore", targets: ["PrefsStore"]),
        .library(name: "Preferences", targets: ["Preferences"]),
        .executable(name: "plutil", targets: ["plutil"]),
        .executable(name: "defaults", targets: ["defaults"]),
        .executable(name: "defaults-fleet", targets: ["defaults-fleet"]),
        .executable(name: "defaults-browse", targets: ["defaults-browse"]),
        .library(name: "PrefsClient", targets: ["PrefsClient"]),
        .executable(name: "prefsd", targets: ["prefsd"]),
    ]
        // The checks of the fuzz harnesses in Fuzz/ that need package API: not for users, so a product only when
        // PREFERENCES_FUZZ_PRODUCTS=1, which Fuzz/run.sh sets when it builds Fuzz/ (docs/FUZZING.md).
        + (Context.environment["PREFERENCES_FUZZ_PRODUCTS"] == "1"
            ? [.library(name: "PrefsFuzzTargets", targets: ["PrefsFuzzTargets"])] : []),
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Only for `make docs` (swift package generate-documentation); no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // C shims: only PrefsPlist imports CPrefsXML2, only PrefsSystemd imports CPrefsSystemd, only PrefsFleet imports
        // CPrefsOpenSSL (the system's OpenSSL for TLS to etcd, docs/FLEET.md "Transport").
        // CPrefsXML2 gives libxml2's types only (its include/libxml links to libxml2-dev's /usr/include/libxml2/libxml):
        // libxml2 is loaded with dlopen on first use, never linked. A system library's pkg-config flags would put
        // -lxml2 on every link, ahead of any --as-needed, and make every process load it.
        .target(
            name: "CPrefsXML2"
        ),
        // The C++ runtime functions the static Swift runtime needs, so that the executables load libstdc++ only when
        // the runtime calls one of its rarer functions (Sources/CPrefsCxxRuntime/cxx_runtime.c). Only the
        // executables depend on it, and it is empty unless scripts/build-release.sh turns it on.
        .target(
            name: "CPrefsCxxRuntime"
        ),
        .systemLibrary(
            name: "CPrefsSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // ncurses, the wide-character build, for the terminal browser (defaults browse): only PrefsBrowser imports it.
        // Its headers are libncurses-dev's, in /usr/include; no pkg-config, whose -D flags SwiftPM refuses.
        .systemLibrary(
            name: "CPrefsCurses"
        ),
        // CPrefsOpenSSL gives OpenSSL's types and defines the functions PrefsFleet calls, forwarding each to libssl,
        // loaded with dlopen when the first TLS context is made: prefsd loads no OpenSSL unless its fleet uses https.
        .target(
            name: "CPrefsOpenSSL"
        ),

        // Modules, bottom up (docs/ARCHITECTURE.md).
        // The shape every module's error type shares (`CodedError`: code, message, cause) and the one way an error is
        // shown, message then cause; on nothing. The modules whose public errors adopt it re-export it.
        .target(
            name: "PrefsErrors"
        ),
        .target(
            name: "PrefsPOSIX"
        ),
        .target(
            name: "PrefsPlist",
            dependencies: ["CPrefsXML2", "PrefsErrors"]
        ),
        // The domain vocabulary beneath the store and the protocol: names, IDs, scopes, search lists, layers,
        // resolutions, change events and origins, fleet targets, and the error they throw. The protocol and the
        // client depend on it instead of the store, so that a client links no storage engine.
        .target(
            name: "PrefsDomain",
            dependencies: ["PrefsErrors", "PrefsPlist"]
        ),
        .target(
            name: "PrefsStore",
            dependencies: ["PrefsPOSIX", "PrefsPlist", "PrefsDomain"]
        ),
        .target(
            name: "PrefsWire",
            dependencies: ["PrefsErrors", "PrefsPlist", "PrefsDomain"]
        ),
        .target(
            name: "PrefsSystemd",
            dependencies: [
                "CPrefsSystemd",
                "PrefsErrors",
                "PrefsPOSIX",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // GVariant text (what g_variant_print writes, and dconf dump prints) parsed, and the one mapping of GVariant
        // values to property-list values, the GSettings backend's (docs/GSETTINGS.md). Pure: text in, values out.
        .target(
            name: "PrefsGVariant",
            dependencies: ["PrefsPlist"]
        ),
        // The one client-side layer of `defaults` and `Preferences`: prefsd or the files, atomic updates, the other
        // programs' settings that `migrate` adopts.
        .target(
            name: "PrefsAccess",
            dependencies: [
                "PrefsErrors", "PrefsPOSIX", "PrefsPlist", "PrefsStore", "PrefsWire", "PrefsClient", "PrefsGVariant",
            ]
        ),
        .target(
            name: "Preferences",
            dependencies: ["PrefsErrors", "PrefsPOSIX", "PrefsPlist", "PrefsStore", "PrefsAccess"]
        ),
        // What the three command-line tools share: the version, the spelling suggestion of a usage error, the
        // completion scripts generated from a table of options.
        .target(
            name: "PrefsCommandLine"
        ),
        // What a `defaults` command line means: verbs, domains, keys and values, parsed without touching anything.
        .target(
            name: "DefaultsArguments",
            dependencies: ["PrefsCommandLine", "PrefsErrors", "PrefsPlist", "PrefsStore", "PrefsAccess", "PrefsDomain"]
        ),
        .target(
            name: "DefaultsCommand",
            dependencies: [
                "DefaultsArguments",
                "PrefsCommandLine",
                "PrefsPOSIX",
                "PrefsClient",
                "PrefsPlist",
                "PrefsStore",
                "PrefsAccess",
                "PrefsWire",
            ]
        ),
        // `plutil`, as a module: the `defaults` executable is plutil too when run by that name (the package's plutil is
        // a link to it), and the `plutil` executable runs it alone.
        .target(
            name: "PlutilCommand",
            dependencies: ["PrefsCommandLine", "PrefsPOSIX", "PrefsPlist", "PrefsDomain"]
        ),
        // `defaults fleet write|read|delete|list`: the etcd actions, which the `defaults-fleet` executable runs, so that
        // `defaults` links neither SwiftNIO nor OpenSSL.
        .target(
            name: "DefaultsFleet",
            dependencies: [
                "DefaultsArguments", "DefaultsCommand", "PrefsFleet", "PrefsPOSIX", "PrefsPlist", "PrefsDomain",
            ]
        ),
        // The etcd v3 client (JSON gateway over HTTP/1.1 on SwiftNIO) and the fleet cache; prefsd and `defaults fleet`
        // use it, the store never does (docs/FLEET.md).
        .target(
            name: "PrefsFleet",
            dependencies: [
                "CPrefsOpenSSL", "PrefsPOSIX", "PrefsPlist", "PrefsStore", "PrefsDomain",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(
            name: "PrefsDaemon",
            dependencies: [
                "PrefsCommandLine", "PrefsPOSIX", "PrefsPlist", "PrefsStore", "PrefsWire", "PrefsSystemd", "PrefsFleet",
                "PrefsDomain", "PrefsErrors",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "PrefsClient",
            dependencies: ["PrefsErrors", "PrefsPOSIX", "PrefsWire", "PrefsPlist"]
        ),

        // What the fuzz harnesses (the separate package in Fuzz/) run on each input. Here, not in Fuzz/, for the
        // package API of DefaultsArguments; every build compiles it, so a change that breaks a check fails at once.
        // Nothing here needs SwiftNIO, swift-log or service-lifecycle, so the harnesses' instrumented build does not
        // compile them.
        .target(
            name: "PrefsFuzzTargets",
            dependencies: ["PrefsPlist", "PrefsWire", "DefaultsArguments"]
        ),

        // Executables.
        .executableTarget(
            name: "plutil",
            dependencies: ["PlutilCommand", "CPrefsCxxRuntime"],
            linkerSettings: fullyStaticInRelease
        ),
        .executableTarget(
            name: "defaults",
            dependencies: ["DefaultsCommand", "PlutilCommand", "CPrefsCxxRuntime"],
            linkerSettings: fullyStaticInRelease
        ),
        // `defaults browse`: the terminal browser and editor of every domain and layer, which the `defaults-browse`
        // executable runs, so that `defaults` links no ncurses (docs/BROWSE.md).
        .target(
            name: "PrefsBrowser",
            dependencies: [
                "CPrefsCurses", "DefaultsArguments", "PrefsAccess", "PrefsCommandLine", "PrefsErrors", "PrefsPOSIX",
                "PrefsPlist", "PrefsStore",
            ]
        ),
        .executableTarget(
            name: "defaults-browse",
            dependencies: ["PrefsBrowser", "CPrefsCxxRuntime"]
        ),
        .executableTarget(
            name: "defaults-fleet",
            dependencies: ["DefaultsCommand", "DefaultsFleet", "CPrefsCxxRuntime"]
        ),
        .executableTarget(
            name: "prefsd",
            dependencies: ["PrefsDaemon", "DefaultsCommand", "DefaultsFleet", "CPrefsCxxRuntime"]
        ),

        // Test support and fixtures (not products), under Tests/Support and Tests/Fixtures.
        .target(
            name: "PrefsTestSupport",
            dependencies: ["PrefsPlist", "PrefsWire"],
            path: "Tests/Support/PrefsTestSupport"
        ),
        .executableTarget(
            name: "PrefsStoreFixture",
            dependencies: ["PrefsStore", "PrefsPlist"],
            path: "Tests/Fixtures/PrefsStoreFixture"
        ),
        .executableTarget(
            name: "PrefsSystemdFixture",
            dependencies: [
                "PrefsSystemd", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Tests/Fixtures/PrefsSystemdFixture"
        ),
        .executableTarget(
            name: "FoundationDefaultsFixture",
            path: "Tests/Fixtures/FoundationDefaultsFixture"
        ),
        .executableTarget(
            name: "PreferencesFixture",
            dependencies: ["Preferences"],
            path: "Tests/Fixtures/PreferencesFixture"
        ),

        // Tests: one target per module, plus end-to-end tests that run the built binaries.
        .testTarget(
            name: "PrefsErrorsTests",
            dependencies: ["PrefsErrors"]
        ),
        .testTarget(
            name: "PrefsPOSIXTests",
            dependencies: ["PrefsPOSIX", "PrefsTestSupport"]
        ),
        .testTarget(
            name: "PrefsCommandLineTests",
            dependencies: ["PrefsCommandLine"]
        ),
        .testTarget(
            name: "PrefsPlistTests",
            dependencies: ["PrefsPlist", "PrefsTestSupport"]
        ),
        .testTarget(
            name: "PrefsGVariantTests",
            dependencies: ["PrefsGVariant", "PrefsPlist"]
        ),
        .testTarget(
            name: "PrefsDomainTests",
            dependencies: ["PrefsDomain", "PrefsPlist"]
        ),
        .testTarget(
            name: "PrefsStoreTests",
            dependencies: ["PrefsStore", "PrefsTestSupport", "PrefsStoreFixture", "PrefsPlist", "PrefsPOSIX"]
        ),
        .testTarget(
            name: "PrefsWireTests",
            dependencies: ["PrefsWire", "PrefsDomain", "PrefsTestSupport", "PrefsPlist"]
        ),
        .testTarget(
            name: "PrefsSystemdTests",
            dependencies: [
                "PrefsSystemd", "PrefsTestSupport", "PrefsSystemdFixture",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "PreferencesTests",
            dependencies: [
                "Preferences", "PrefsStore", "PrefsTestSupport", "PreferencesFixture", "PrefsPlist", "PrefsDomain",
            ]
        ),
        .testTarget(
            name: "DefaultsCommandTests",
            dependencies: [
                "DefaultsCommand", "DefaultsArguments", "PrefsAccess", "PrefsCommandLine", "PrefsWire",
                "PrefsTestSupport", "PrefsPlist", "PrefsStore", "PrefsPOSIX", "PrefsDomain",
            ]
        ),
        .testTarget(
            name: "PrefsAccessTests",
            dependencies: ["PrefsAccess", "PrefsTestSupport", "PrefsPlist", "PrefsStore", "PrefsClient", "PrefsWire"]
        ),
        .testTarget(
            name: "PrefsBrowserTests",
            dependencies: ["PrefsBrowser", "PrefsAccess", "PrefsStore", "PrefsPlist", "PrefsPOSIX", "PrefsTestSupport"]
        ),
        .testTarget(
            name: "PrefsDaemonTests",
            dependencies: [
                "PrefsDaemon", "PrefsClient", "PrefsTestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                "PrefsPlist", "PrefsWire", "PrefsStore", "PrefsPOSIX", "PrefsFleet",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "PrefsClientTests",
            dependencies: [
                "PrefsClient", "PrefsDaemon", "PrefsTestSupport", "PrefsPlist", "PrefsWire", "PrefsStore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "DaemonEndToEndTests",
            dependencies: [
                "PrefsAccess", "PrefsClient", "PrefsWire", "PrefsTestSupport", "Preferences", "prefsd", "defaults",
                "defaults-browse",
                "PreferencesFixture", "PrefsPlist", "PrefsStore", "PrefsDaemon",
            ]
        ),
        .testTarget(
            name: "FleetTests",
            dependencies: [
                "PrefsFleet", "PrefsDomain", "PrefsStore", "PrefsPlist", "PrefsWire", "PrefsClient",
                "PrefsTestSupport", "prefsd", "defaults", "defaults-fleet",
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["PrefsCommandLine", "PrefsTestSupport", "plutil"]
        ),
        .testTarget(
            name: "DefaultsEndToEndTests",
            dependencies: [
                "PrefsCommandLine", "PrefsPlist", "PrefsTestSupport", "defaults", "defaults-browse",
                "FoundationDefaultsFixture",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Strict builds, as swift-log's manifest has them: an existential says `any`, and a file uses only the members of
// modules it imports itself (no member leaks in through another file's import).
for target in package.targets where target.type != .system && !target.name.hasPrefix("CPrefs") {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
