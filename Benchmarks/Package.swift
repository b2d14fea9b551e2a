// swift-tools-version: 6.1
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

// Benchmarks, kept out of the product's package graph. Run with `make bench` (see docs/BENCHMARKS.md).
let package = Package(
    name: "preferences-benchmarks",
    dependencies: [
        .package(name: "preferences", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The shared ~1 MB input of the property-list benchmarks.
        .target(
            name: "PlistBenchmarkInput",
            dependencies: [.product(name: "PrefsPlist", package: "preferences")],
            path: "Benchmarks/PlistBenchmarkInput"
        ),
        .executableTarget(
            name: "PlistBenchmarks",
            dependencies: [
                "PlistBenchmarkInput",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PrefsPlist", package: "preferences"),
            ],
            path: "Benchmarks/PlistBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Not a package-benchmark target: ours, Foundation and Python's plistlib alternating round by round on the
        // same input, for ratios that drift with the machine's load as little as possible (`swift run -c release
        // PlistRatios`; docs/BENCHMARKS.md).
        .executableTarget(
            name: "PlistRatios",
            dependencies: ["PlistBenchmarkInput", .product(name: "PrefsPlist", package: "preferences")],
            path: "Benchmarks/PlistRatios"
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
        // Starting and timing the programs the two load generators below run.
        .target(
            name: "BenchmarkProcesses",
            path: "Benchmarks/BenchmarkProcesses"
        ),
        // epoll for the fan-out receivers, which hold hundreds of connections each.
        .target(name: "CEpoll", path: "CEpoll"),
        .executableTarget(
            name: "DaemonBenchmarks",
            dependencies: ["BenchmarkProcesses", "CEpoll", .product(name: "PrefsClient", package: "preferences")],
            path: "Benchmarks/DaemonBenchmarks"
        ),
        // Fleet propagation to 10 and 50 real prefsd hosts on a real etcd cluster, with a raw `etcdctl watch` as the
        // floor in the same run (`swift run -c release FleetBenchmarks`; docs/FLEET.md).
        .executableTarget(
            name: "FleetBenchmarks",
            dependencies: [
                "BenchmarkProcesses",
                .product(name: "PrefsClient", package: "preferences"),
                .product(name: "PrefsPlist", package: "preferences"),
            ],
            path: "Benchmarks/FleetBenchmarks"
        ),
    ],
    swiftLanguageModes: [.v6]
)
