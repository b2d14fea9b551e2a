// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist

/// The shared ~1 MB mixed property list: `../shared/bench/gen_plist.py` (seed 42) when the shared folder is
/// beside the repository, else an equivalent mix generated here (10,000 keys cycling through strings, integers,
/// reals, booleans, dates, data, small arrays and small dictionaries).
package struct BenchmarkInput: Sendable {
    package let xml: [UInt8]
    package let binary: [UInt8]
    package let value: PlistValue
    /// Where the input came from: `gen_plist.py` or `generated`.
    package let source: String

    /// The input, loaded once.
    package static let shared: BenchmarkInput = load()

    private static func load() -> BenchmarkInput {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let generator = repository.deletingLastPathComponent().appendingPathComponent("shared/bench/gen_plist.py")
        if FileManager.default.fileExists(atPath: generator.path) {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-bench-\(getpid())")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", generator.path, directory.path]
            process.standardOutput = FileHandle.nullDevice
            if (try? process.run()) != nil {
                process.waitUntilExit()
                if process.terminationStatus == 0,
                    let xml = try? Data(contentsOf: directory.appendingPathComponent("big.xml")),
                    let binary = try? Data(contentsOf: directory.appendingPathComponent("big.bin")),
                    let value = try? PlistSerialization.decode(Array(xml))
                {
                    try? FileManager.default.removeItem(at: directory)
                    return BenchmarkInput(xml: Array(xml), binary: Array(binary), value: value, source: "gen_plist.py")
                }
            }
        }
        let value = generated()
        return BenchmarkInput(
            xml: try! PlistSerialization.encode(value, format: .xml),
            binary: try! PlistSerialization.encode(value, format: .binary), value: value, source: "generated")
    }

    private static func generated() -> PlistValue {
        var state: UInt64 = 42
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 ")
        func string() -> String { String((0..<(8 + Int(next() % 33))).map { _ in letters[Int(next() % 63)] }) }
        func scalar(_ kind: Int) -> PlistValue {
            switch kind % 6 {
            case 0: .string(string())
            case 1: .integer(PlistInteger(Int64(next() % (1 << 41)) - (1 << 40)))
            case 2: .real(Double(next() % 2_000_000_000) / 1000 - 1e6)
            case 3: .bool(next() % 2 == 0)
            case 4: .date(PlistDate(secondsSinceReferenceDate: Double(next() % 800_000_000)))
            default: .data((0..<(8 + Int(next() % 25))).map { _ in UInt8(truncatingIfNeeded: next()) })
            }
        }
        var root: PlistDictionary = [:]
        for index in 0..<10_000 {
            let key = "\(words[Int(next() % 10)]).\(String(format: "%05d", index)).\(words[Int(next() % 10)])"
            switch index % 8 {
            case 0..<6: root[key] = scalar(index % 8)
            case 6: root[key] = .array((0..<(2 + Int(next() % 4))).map { _ in scalar(Int(next() % 6)) })
            default:
                root[key] = .dictionary(
                    PlistDictionary(
                        uniqueKeysWithValues: (0..<(2 + Int(next() % 3))).map {
                            ("\(words[Int(next() % 10)])\($0)", scalar(Int(next() % 6)))
                        }))
            }
        }
        return .dictionary(root)
    }
}
