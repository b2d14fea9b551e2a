// swift-tools-version: 6.1
import PackageDescription

// Benchmarks, kept out of the product's package graph. Run with `make bench` (see docs/BENCHMARKS.md).
let package = Package(
    name: "preferences-benchmarks",
    dependencies: [
        .package(name: "preferences", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "PlistBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PrefsPlist", package: "preferences"),
            ],
            path: "Benchmarks/PlistBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "PreferencesBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Preferences", package: "preferences"),
            ],
            path: "Benchmarks/PreferencesBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Not a package-benchmark target: a load generator that runs prefsd and, in the same run, redis-benchmark and
        // dconf as references (`swift run -c release DaemonBenchmarks`; docs/DAEMON.md).
        .executableTarget(
            name: "DaemonBenchmarks",
            dependencies: [.product(name: "PrefsClient", package: "preferences")],
            path: "Benchmarks/DaemonBenchmarks"
        ),
    ],
    swiftLanguageModes: [.v6]
)
