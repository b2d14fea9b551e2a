// SPDX-License-Identifier: Apache-2.0
import Benchmark
import Foundation
import PlistBenchmarkInput
import PrefsPlist

/// Decode and encode of the ~1 MB mixed property list, ours against Foundation's PropertyListSerialization
/// in the same run. Throughput in MB/s = input size / wall-clock time per iteration (docs/BENCHMARKS.md).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .microseconds,
        warmupIterations: 3,
        maxDuration: .seconds(3),
        maxIterations: 400
    )
    let input = BenchmarkInput.shared
    let xmlData = Data(input.xml)
    let binaryData = Data(input.binary)
    let foundationValue = try! PropertyListSerialization.propertyList(from: xmlData, format: nil)
    print("input (\(input.source)): XML \(input.xml.count) bytes, binary \(input.binary.count) bytes")

    Benchmark("plist XML decode (PrefsPlist)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PlistSerialization.decode(input.xml)) }
    }
    Benchmark("plist XML decode (Foundation)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try PropertyListSerialization.propertyList(from: xmlData, format: nil))
        }
    }
    Benchmark("plist binary decode (PrefsPlist)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PlistSerialization.decode(input.binary)) }
    }
    Benchmark("plist binary decode (Foundation)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try PropertyListSerialization.propertyList(from: binaryData, format: nil))
        }
    }
    Benchmark("plist XML encode (PrefsPlist)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PlistSerialization.encode(input.value, format: .xml)) }
    }
    Benchmark("plist XML encode (Foundation)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try PropertyListSerialization.data(fromPropertyList: foundationValue, format: .xml, options: 0))
        }
    }
    Benchmark("plist binary encode (PrefsPlist)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PlistSerialization.encode(input.value, format: .binary)) }
    }
    Benchmark("plist binary encode (Foundation)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                try PropertyListSerialization.data(fromPropertyList: foundationValue, format: .binary, options: 0))
        }
    }
}
