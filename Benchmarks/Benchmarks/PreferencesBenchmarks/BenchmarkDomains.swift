// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences

/// The domains both libraries are measured on, in a temp dir that also serves as HOME, so that neither touches the
/// user's real preferences.
///
/// - a 200-key application domain for reads and `set` (strings, integers, reals, Booleans), plus a small global
///   domain, as an application typically has;
/// - the shared ~1 MB, 10,000-key mixed domain (`../shared/bench/gen_plist.py`, seed 42) for the flush after one
///   change.
final class BenchmarkDomains: Sendable {
    let directory: String
    let smallDomain: PlistDictionary
    let largeDomain: PlistDictionary
    let largeDomainSource: String

    static let shared = BenchmarkDomains()

    private init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("prefs-bench-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: directory + "/home", withIntermediateDirectories: true)
        // Foundation's UserDefaults keeps its files under HOME / XDG_CONFIG_HOME: point them here before first use.
        setenv("HOME", directory + "/home", 1)
        setenv("XDG_CONFIG_HOME", directory + "/home/.config", 1)
        var small: PlistDictionary = [:]
        for index in 0..<200 {
            switch index % 4 {
            case 0: small["key\(index)"] = .string("value \(index)")
            case 1: small["key\(index)"] = .integer(PlistInteger(Int64(index)))
            case 2: small["key\(index)"] = .real(Double(index) / 7)
            default: small["key\(index)"] = .bool(index % 8 == 3)
            }
        }
        small["bench.int"] = 42
        smallDomain = small
        (largeDomain, largeDomainSource) = Self.loadLargeDomain(into: directory)
    }

    /// Removes the temp dir (at the end of the run).
    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A storage on the temp dir, with the default flush delay (1 s).
    func storage() -> PreferencesStorage {
        .directories(preferences: directory + "/prefs", system: directory + "/system", domains: directory + "/domains")
    }

    /// Foundation's form of a domain.
    static func foundationDictionary(_ values: PlistDictionary) -> [String: Any] {
        let xml = try! PlistSerialization.encode(.dictionary(values), format: .xml)
        return try! PropertyListSerialization.propertyList(from: Data(xml), format: nil) as! [String: Any]
    }

    private static func loadLargeDomain(into directory: String) -> (PlistDictionary, String) {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let generator = repository.deletingLastPathComponent().appendingPathComponent("shared/bench/gen_plist.py")
        if FileManager.default.fileExists(atPath: generator.path) {
            let output = directory + "/input"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", generator.path, output]
            process.standardOutput = FileHandle.nullDevice
            if (try? process.run()) != nil {
                process.waitUntilExit()
                if process.terminationStatus == 0,
                    let xml = try? Data(contentsOf: URL(fileURLWithPath: output + "/big.xml")),
                    let value = try? PlistSerialization.decode(Array(xml)), let dictionary = value.dictionaryValue
                {
                    return (dictionary, "gen_plist.py, \(xml.count) bytes of XML")
                }
            }
        }
        var generated: PlistDictionary = [:]
        for index in 0..<10_000 {
            switch index % 5 {
            case 0: generated["key\(index)"] = .string(String(repeating: "x", count: 40 + index % 30))
            case 1: generated["key\(index)"] = .integer(PlistInteger(Int64(index) * 7919))
            case 2: generated["key\(index)"] = .real(Double(index) * 1.5)
            case 3: generated["key\(index)"] = .array(["a", .integer(PlistInteger(Int64(index)))])
            default: generated["key\(index)"] = .dictionary(["n": .integer(PlistInteger(Int64(index))), "s": "t"])
            }
        }
        return (generated, "generated, 10,000 keys")
    }
}
