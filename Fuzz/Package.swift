// swift-tools-version: 6.1
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

// libFuzzer harnesses: one executable per property-list reader, and one each for the wire decoder, `defaults write`'s
// value parser and key paths, whose checks live in the main package's PrefsFuzzTargets. Build and run with `./run.sh`
// (it passes `-sanitize=fuzzer,address` and links with lld: gold fails on the instrumented objects); see docs/FUZZING.md.
let fuzzTargets = Target.Dependency.product(name: "PrefsFuzzTargets", package: "preferences")

let package = Package(
    name: "preferences-fuzz",
    dependencies: [
        .package(name: "preferences", path: "..")
    ],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "PrefsPlist", package: "preferences")]),
        .executableTarget(name: "FuzzXML", dependencies: ["FuzzSupport", fuzzTargets]),
        .executableTarget(name: "FuzzBinary", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzOpenStep", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzJSON", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzWire", dependencies: ["FuzzSupport", fuzzTargets]),
        .executableTarget(name: "FuzzDefaults", dependencies: ["FuzzSupport", fuzzTargets]),
        .executableTarget(name: "FuzzKeyPath", dependencies: ["FuzzSupport", fuzzTargets]),
    ],
    swiftLanguageModes: [.v6]
)
