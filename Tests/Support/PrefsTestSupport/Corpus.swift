// SPDX-License-Identifier: Apache-2.0
import Foundation
public import PrefsPlist

/// The shared conformance corpus (`../shared/corpus` beside the repository), when present.
///
/// Tests that read it call ``Corpus/load()`` and skip with a message when it returns `nil`, since a
/// user's clone has no `../shared`. `PREFS_CORPUS_DIR` points elsewhere.
public struct Corpus: Sendable {
    /// What a reader that behaves like Apple's must do with a file (from `SOURCES.md`).
    public enum Expectation: String, Sendable, CaseIterable {
        /// Must decode (to the `.expected.json` value when there is one).
        case accept
        /// Must fail with an error.
        case reject
        /// Fuzzer crasher or resource probe: must finish without a crash, either way.
        case hostile
        /// Implementation-defined; our choice is documented in docs/PLIST-CONFORMANCE.md.
        case impl
        /// GNUstep-only syntax; our choice is documented in docs/PLIST-CONFORMANCE.md.
        case gnustep
    }

    /// One data file of the corpus.
    public struct File: Sendable, CustomStringConvertible {
        /// `folder/name`, e.g. `xml/libplist-1.plist`.
        public let relativePath: String
        /// The absolute path.
        public let path: String
        /// The expected outcome.
        public let expectation: Expectation
        /// The `.expected.json` path, when the corpus gives a value.
        public let expectedJSONPath: String?

        public var description: String { relativePath }

        /// The file's bytes.
        public func bytes() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

        /// The value the file must decode to, when the corpus gives one.
        public func expectedValue() throws -> PlistValue? {
            guard let expectedJSONPath else { return nil }
            let data = try Data(contentsOf: URL(fileURLWithPath: expectedJSONPath))
            let json = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            guard let object = json as? [String: Any], let root = object["root"] else {
                throw CorpusError("\(expectedJSONPath): no root node")
            }
            return try Self.value(fromNode: root)
        }

        static func value(fromNode node: Any) throws -> PlistValue {
            guard let node = node as? [String: Any], let type = node["type"] as? String else {
                throw CorpusError("node without a type: \(node)")
            }
            let value = node["value"]
            switch type {
            case "dict":
                var result: PlistDictionary = [:]
                for pair in value as? [[Any]] ?? [] {
                    guard pair.count == 2, let key = pair[0] as? String else { throw CorpusError("bad pair \(pair)") }
                    result[key] = try self.value(fromNode: pair[1])
                }
                return .dictionary(result)
            case "array", "set":
                return .array(try (value as? [Any] ?? []).map(self.value(fromNode:)))
            case "string":
                return .string(value as? String ?? "")
            case "integer":
                let text = value as? String ?? ""
                if let signed = Int64(text) { return .integer(PlistInteger(signed)) }
                if let unsigned = UInt64(text) { return .integer(PlistInteger(unsigned)) }
                throw CorpusError("integer out of range: \(text)")
            case "real":
                return .real(try Self.double(node))
            case "bool":
                return .bool(value as? Bool ?? false)
            case "date":
                if let bits = node["bits"] as? String, let pattern = UInt64(bits, radix: 16) {
                    return .date(PlistDate(secondsSinceReferenceDate: Double(bitPattern: pattern)))
                }
                let absolute: Double
                switch node["abs"] {
                case let number as NSNumber: absolute = number.doubleValue
                case let text as String: absolute = Double(text) ?? .nan
                default: throw CorpusError("date without abs: \(node)")
                }
                return .date(PlistDate(secondsSinceReferenceDate: absolute))
            case "data":
                guard let text = value as? String, let data = Data(base64Encoded: text) else {
                    throw CorpusError("bad data node \(node)")
                }
                return .data(Array(data))
            case "uid":
                guard let text = value as? String, let number = UInt64(text) else { throw CorpusError("bad uid") }
                return .uid(number)
            case "null":
                return .null
            default:
                throw CorpusError("unknown node type \(type)")
            }
        }

        private static func double(_ node: [String: Any]) throws -> Double {
            guard let bits = node["bits"] as? String else { throw CorpusError("real without bits: \(node)") }
            if node["width"] as? Int == 32, let pattern = UInt32(bits, radix: 16) {
                return Double(Float(bitPattern: pattern))
            }
            guard let pattern = UInt64(bits, radix: 16) else { throw CorpusError("bad real bits \(bits)") }
            return Double(bitPattern: pattern)
        }
    }

    /// The corpus directory.
    public let directory: String
    /// Every data file listed in `SOURCES.md`.
    public let files: [File]

    /// Finds and indexes the corpus; `nil` when it is absent.
    public static func load() throws -> Corpus? {
        guard let directory = locate() else { return nil }
        let sources = try String(contentsOfFile: directory + "/SOURCES.md", encoding: .utf8)
        var folder = ""
        var files: [File] = []
        let fileManager = FileManager.default
        for line in sources.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("### "), line.hasSuffix("/") {
                folder = String(line.dropFirst(4).dropLast())
                continue
            }
            guard line.hasPrefix("* **`"), let nameEnd = line.dropFirst(5).firstIndex(of: "`"),
                let expectRange = line.range(of: "*expect*: ")
            else { continue }
            let name = String(line[line.index(line.startIndex, offsetBy: 5)..<nameEnd])
            let word = line[expectRange.upperBound...].prefix { $0.isLetter }
            guard let expectation = Expectation(rawValue: String(word)) else { continue }
            let path = "\(directory)/\(folder)/\(name)"
            guard fileManager.fileExists(atPath: path) else { continue }
            let json = path + ".expected.json"
            files.append(
                File(
                    relativePath: "\(folder)/\(name)", path: path, expectation: expectation,
                    expectedJSONPath: fileManager.fileExists(atPath: json) ? json : nil))
        }
        return Corpus(directory: directory, files: files)
    }

    /// The message tests print when they skip for want of the corpus.
    public static let absentMessage =
        "conformance corpus not found (expected ../shared/corpus beside the repository, or PREFS_CORPUS_DIR): skipped"

    private static func locate() -> String? {
        if let override = ProcessInfo.processInfo.environment["PREFS_CORPUS_DIR"] {
            return FileManager.default.fileExists(atPath: override + "/SOURCES.md") ? override : nil
        }
        // Tests/Support/PrefsTestSupport/Corpus.swift → the repository root → its sibling `shared`.
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let candidate = repository.deletingLastPathComponent().appendingPathComponent("shared/corpus").path
        return FileManager.default.fileExists(atPath: candidate + "/SOURCES.md") ? candidate : nil
    }
}

/// A problem with the corpus itself (not with the code under test).
public struct CorpusError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
