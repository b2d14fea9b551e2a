// SPDX-License-Identifier: Apache-2.0
import Benchmark
import Foundation
import Preferences

/// `Preferences` against Foundation's `UserDefaults`, in the same run, on the same domains (docs/PREFERENCES.md,
/// "Performance"): a hot typed read, `set`, an atomic `update`, the flush after one change in a 10,000-key domain, and the cross-process
/// change latency in embedded mode.
let benchmarks: @Sendable () -> Void = {
    LatencyPeer.runIfPeer()
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 3,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )
    let domains = BenchmarkDomains.shared
    print("large domain: \(domains.largeDomainSource)")
    let storage = domains.storage()
    let prefs = try! Preferences(domain: "com.example.Bench", storage: storage)
    prefs.setPersistentDomain(AnyDictionary.from(domains.smallDomain), forName: "com.example.Bench")
    prefs.synchronize()
    let foundation = UserDefaults(suiteName: "com.example.Bench")!
    foundation.setPersistentDomain(
        BenchmarkDomains.foundationDictionary(domains.smallDomain), forName: "com.example.Bench")
    foundation.synchronize()
    let counter = Preferences.Key("bench.int", default: 0)
    precondition(prefs.integer(forKey: "bench.int") == 42 && foundation.integer(forKey: "bench.int") == 42)

    // Hot typed read: the value is in memory; each read is a lookup plus the integer rule.
    Benchmark("read integer(forKey:) (Preferences)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(prefs.integer(forKey: "bench.int")) }
    }
    Benchmark("read typed key subscript (Preferences)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(prefs[counter]) }
    }
    Benchmark("read integer(forKey:) (Foundation)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(foundation.integer(forKey: "bench.int")) }
    }

    // set: a new value each time, so every call is a real change (memory now, disk within the flush delay).
    Benchmark("set(_:forKey:) Int (Preferences)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for index in benchmark.scaledIterations { prefs.set(index, forKey: "bench.set") }
    }
    Benchmark("set(_:forKey:) Int (Foundation)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for index in benchmark.scaledIterations { foundation.set(index, forKey: "bench.set") }
    }

    // update: an atomic increment, against set of a new value; Foundation's peer is the read-then-set that
    // UserDefaults offers, which loses increments made concurrently by another process.
    Benchmark("update Int increment (Preferences)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let key = Preferences.Key("bench.update", default: 0)
        for _ in benchmark.scaledIterations { blackHole(try! prefs.update(key) { $0 += 1 }) }
    }
    Benchmark("read + set Int increment (Foundation)", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations {
            foundation.set(foundation.integer(forKey: "bench.update") + 1, forKey: "bench.update")
        }
    }

    // Flush after one change in the 10,000-key domain: set one key, then synchronize (durable: fsync'd).
    let large = try! Preferences(domain: "com.example.Large", storage: storage)
    large.setPersistentDomain(AnyDictionary.from(domains.largeDomain), forName: "com.example.Large")
    large.synchronize()
    let foundationLarge = UserDefaults(suiteName: "com.example.Large")!
    foundationLarge.setPersistentDomain(
        BenchmarkDomains.foundationDictionary(domains.largeDomain), forName: "com.example.Large")
    foundationLarge.synchronize()
    // Wall time includes waiting for two fsyncs (ours) or one (Foundation's) on a disk other work shares; the
    // calling thread's CPU time per flush is recorded too, as "thread CPU (ns)".
    var flushCounter = 0
    let threadCPU = BenchmarkMetric.custom("thread CPU (ns)", polarity: .prefersSmaller, useScalingFactor: false)
    let flushConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, threadCPU], maxDuration: .seconds(5), maxIterations: 200)
    Benchmark("flush after one change, 10,000 keys (Preferences)", configuration: flushConfiguration) { benchmark in
        flushCounter += 1
        let start = threadCPUNanoseconds()
        large.set(flushCounter, forKey: "bench.flush")
        precondition(large.synchronize())
        benchmark.measurement(threadCPU, threadCPUNanoseconds() - start)
    }
    Benchmark("flush after one change, 10,000 keys (Foundation)", configuration: flushConfiguration) { benchmark in
        flushCounter += 1
        let start = threadCPUNanoseconds()
        foundationLarge.set(flushCounter, forKey: "bench.flush")
        precondition(foundationLarge.synchronize())
        benchmark.measurement(threadCPU, threadCPUNanoseconds() - start)
    }

    // Cross-process change latency: the peer's set + synchronize until this process's observer runs.
    let latency = LatencyRun(directory: domains.directory + "/latency")
    let latencyMetric = BenchmarkMetric.custom("latency", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "cross-process change latency (Preferences, embedded)",
        configuration: .init(
            metrics: [latencyMetric], warmupIterations: 5, maxDuration: .seconds(10), maxIterations: 300,
            setup: { latency.start() }, teardown: { latency.stop() })
    ) { benchmark in
        benchmark.measurement(latencyMetric, latency.measureOnce())
    }
}

/// The peer process of the latency benchmark, started when that benchmark runs.
final class LatencyRun: @unchecked Sendable {
    private let directory: String
    private var observer: LatencyPeer.Observer?

    init(directory: String) {
        self.directory = directory
    }

    func start() {
        observer = try! LatencyPeer.Observer(directory: directory)
    }

    func measureOnce() -> Int {
        observer!.measureOnce()
    }

    func stop() {
        observer?.stop()
        observer = nil
    }
}

/// CPU time of the calling thread, in nanoseconds.
func threadCPUNanoseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return now.tv_sec * 1_000_000_000 + now.tv_nsec
}

/// Foundation-free conversion for `setPersistentDomain`, which takes `[String: Any]`.
enum AnyDictionary {
    static func from(_ values: PlistDictionary) -> [String: Any] {
        var result: [String: Any] = [:]
        for (key, value) in values { result[key] = value }
        return result
    }
}
