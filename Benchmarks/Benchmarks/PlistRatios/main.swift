// SPDX-License-Identifier: Apache-2.0
import Foundation
import PlistBenchmarkInput
import PrefsPlist

// Ours, Foundation's PropertyListSerialization and Python's plistlib on the shared ~1 MB input, alternating round by
// round: each round times a few runs of each on the same minute of the machine, and a row reports the medians over
// the rounds and the median of the rounds' ratios with their range. On a shared machine the load moves from minute
// to minute; ratios of figures taken minutes apart move with it (docs/BENCHMARKS.md).
//
//   swift run -c release PlistRatios [rounds]

let rounds = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 15
let input = BenchmarkInput.shared
let xmlData = Data(input.xml)
let binaryData = Data(input.binary)
let foundationValue = try PropertyListSerialization.propertyList(from: xmlData, format: nil)

/// The median of the values (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// The median seconds of `runs` runs of `body`.
func medianSeconds(runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return median(times)
}

/// Python's plistlib in a process of its own (`scripts/bench-plistlib.py --serve`), timing what it is asked to.
final class PlistlibPeer {
    private let process = Process()
    private let requests = Pipe()
    private let answers = Pipe()
    private var buffered: [UInt8] = []

    init?(directory: URL) {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/bench-plistlib.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--serve", directory.path]
        process.standardInput = requests
        process.standardOutput = answers
        guard (try? process.run()) != nil, readLine() == "ready" else { return nil }
    }

    /// The median seconds of `runs` runs of `operation` (`xml-load`, `binary-load`, `xml-dump`, `binary-dump`).
    func medianSeconds(_ operation: String, runs: Int) -> Double? {
        requests.fileHandleForWriting.write(Data("\(operation) \(runs)\n".utf8))
        return readLine().flatMap(Double.init)
    }

    private func readLine() -> String? {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let more = answers.fileHandleForReading.availableData
            if more.isEmpty { return nil }
            buffered += more
        }
    }

    func stop() {
        try? requests.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// One row: ours, Foundation's and plistlib's medians per round.
struct Row {
    let name: String
    let bytes: Int
    let plistlibOperation: String
    /// Runs per round: ours is several times faster, so it runs more often for a steady median.
    let ourRuns: Int
    let ours: () throws -> Void
    let foundation: () throws -> Void
    var ourSeconds: [Double] = []
    var foundationSeconds: [Double] = []
    var plistlibSeconds: [Double] = []
}

var rows = [
    Row(
        name: "XML decode", bytes: input.xml.count, plistlibOperation: "xml-load", ourRuns: 9,
        ours: { _ = try PlistSerialization.decode(input.xml) },
        foundation: { _ = try PropertyListSerialization.propertyList(from: xmlData, format: nil) }),
    Row(
        name: "binary decode", bytes: input.binary.count, plistlibOperation: "binary-load", ourRuns: 9,
        ours: { _ = try PlistSerialization.decode(input.binary) },
        foundation: { _ = try PropertyListSerialization.propertyList(from: binaryData, format: nil) }),
    Row(
        name: "XML encode", bytes: input.xml.count, plistlibOperation: "xml-dump", ourRuns: 9,
        ours: { _ = try PlistSerialization.encode(input.value, format: .xml) },
        foundation: {
            _ = try PropertyListSerialization.data(fromPropertyList: foundationValue, format: .xml, options: 0)
        }),
    Row(
        name: "binary encode", bytes: input.binary.count, plistlibOperation: "binary-dump", ourRuns: 9,
        ours: { _ = try PlistSerialization.encode(input.value, format: .binary) },
        foundation: {
            _ = try PropertyListSerialization.data(fromPropertyList: foundationValue, format: .binary, options: 0)
        }),
]

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plist-ratios-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
try Data(input.xml).write(to: directory.appendingPathComponent("big.xml"))
try Data(input.binary).write(to: directory.appendingPathComponent("big.bin"))
let plistlib = PlistlibPeer(directory: directory)
if plistlib == nil { print("plistlib peer: python3 could not start scripts/bench-plistlib.py; its column is empty") }

print(
    "input (\(input.source)): XML \(input.xml.count) bytes, binary \(input.binary.count) bytes; \(rounds) rounds, "
        + "each: ours, Foundation, plistlib")
for index in rows.indices {
    // A warm-up run of each, then the rounds.
    try rows[index].ours()
    try rows[index].foundation()
    _ = plistlib?.medianSeconds(rows[index].plistlibOperation, runs: 1)
    for _ in 0..<rounds {
        rows[index].ourSeconds.append(try medianSeconds(runs: rows[index].ourRuns, rows[index].ours))
        rows[index].foundationSeconds.append(try medianSeconds(runs: 3, rows[index].foundation))
        if let seconds = plistlib?.medianSeconds(rows[index].plistlibOperation, runs: 3) {
            rows[index].plistlibSeconds.append(seconds)
        }
    }
}
plistlib?.stop()

/// "8.4× (7.9–9.0)": the median of the rounds' ratios of the peer's time to ours, and their range.
func ratio(_ peer: [Double], _ ours: [Double]) -> String {
    guard peer.count == ours.count, !peer.isEmpty else { return "—" }
    let ratios = zip(peer, ours).map { $0 / $1 }
    return String(format: "%.1f× (%.1f–%.1f)", median(ratios), ratios.min()!, ratios.max()!)
}

func milliseconds(_ seconds: [Double]) -> String {
    seconds.isEmpty ? "—" : String(format: "%.2f ms", median(seconds) * 1e3)
}

print("| row | ours | MB/s | Foundation | vs Foundation | plistlib | vs plistlib |")
print("|---|---|---|---|---|---|---|")
for row in rows {
    let throughput = Double(row.bytes) / median(row.ourSeconds) / 1e6
    print(
        "| \(row.name) | \(milliseconds(row.ourSeconds)) | \(String(format: "%.0f", throughput)) | "
            + "\(milliseconds(row.foundationSeconds)) | \(ratio(row.foundationSeconds, row.ourSeconds)) | "
            + "\(milliseconds(row.plistlibSeconds)) | \(ratio(row.plistlibSeconds, row.ourSeconds)) |")
}
