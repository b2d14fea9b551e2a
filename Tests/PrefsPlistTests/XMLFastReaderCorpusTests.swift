// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

@testable import PrefsPlist

/// The documents the fast path is compared with libxml2 on.
private enum DifferentialDocuments {
    static let corpus: Corpus? = try? Corpus.load()

    /// Every XML file of the corpus, and the files of `malformed/` that look like XML.
    static let corpusDocuments: [XMLCase] = (corpus?.files ?? []).compactMap { file in
        guard file.relativePath.hasPrefix("xml/") || file.relativePath.hasPrefix("malformed/"),
            let bytes = try? file.bytes(), bytes.withUnsafeBytes({ PlistFormat.sniff($0) }) == .xml
        else { return nil }
        return XMLCase(file.relativePath, bytes: bytes)
    }

    /// The repository's own XML: the shipped domains.
    static let repositoryDocuments: [XMLCase] = {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let domains = repository.appendingPathComponent("Domains")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: domains.path)) ?? []
        return names.sorted().filter { $0.hasSuffix(".plist") }.compactMap { name in
            guard let data = FileManager.default.contents(atPath: domains.appendingPathComponent(name).path) else {
                return nil
            }
            return XMLCase("Domains/\(name)", bytes: Array(data))
        }
    }()

    /// What our writer produces, for random values of every type XML holds.
    static let writtenDocuments: [XMLCase] = (1...200).compactMap { seed in
        var random = RandomPlist(seed: UInt64(seed), profile: .xml)
        guard let bytes = try? PlistSerialization.encode(random.value(), format: .xml) else { return nil }
        return XMLCase("written by the XML writer, seed \(seed)", bytes: bytes)
    }

    /// Pieces of XML syntax, and bytes that are not, to edit documents with.
    static let edits: [[UInt8]] =
        [
            "<", ">", "&", ";", "]]>", "]", "\r", "\r\n", "-", "--", "<!--", "-->", "<![CDATA[", "&#", "&#x", "x", "\"",
            "'", "=", " ", "\t", "/", "?", "<?", "?>", "&amp;", "&#13;", "&#xFFFE;", "&lt", "<true/>", "</", "<key>",
            "</key>", "<string>", "</string>", "<dict>", "<plist>", " xmlns=\"a\"", ":", "é", "😀", "\u{0}", "\u{1}",
            "<!DOCTYPE plist>", "[", "<?xml version=\"1.0\"?>", " a=\"1\"", "0", "UTF-16",
        ].map { Array($0.utf8) } + [
            [0x80], [0xC3], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBE], [0xF4, 0x90, 0x80, 0x80],
        ]

    /// Each corpus XML file of up to 32 KB edited at random places, twenty times: one to three insertions, deletions
    /// or replacements.
    static let editedDocuments: [XMLCase] = corpusDocuments.filter {
        $0.name.hasPrefix("xml/") && $0.bytes.count <= 32 << 10
    }.flatMap { document in
        var random = RandomPlist(
            seed: UInt64(truncatingIfNeeded: document.name.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }), profile: .xml)
        return (0..<20).map { round -> XMLCase in
            var bytes = document.bytes
            for _ in 0...(round % 3) {
                let position = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count))
                let edit = edits[Int(random.next() % UInt64(edits.count))]
                switch random.next() % 3 {
                case 0: bytes.insert(contentsOf: edit, at: position)
                case 1: bytes.removeSubrange(position..<min(bytes.count, position + 1 + Int(random.next() % 4)))
                default: bytes.replaceSubrange(position..<min(bytes.count, position + edit.count), with: edit)
                }
            }
            return XMLCase("\(document.name), edit \(round)", bytes: bytes)
        }
    }
}

/// The fast path against libxml2 on real documents: where it reads a document, libxml2 reads the same value; where
/// libxml2 refuses one, it leaves it to libxml2; and the reader's result is libxml2's either way.
@Suite("XML reader: the fast path on real documents")
struct XMLFastReaderCorpusTests {
    @Test(
        "the corpus and the repository's documents",
        .enabled(if: DifferentialDocuments.corpus != nil, Comment(rawValue: Corpus.absentMessage)),
        arguments: DifferentialDocuments.corpusDocuments + DifferentialDocuments.repositoryDocuments)
    func realDocument(_ document: XMLCase) {
        checkAgainstLibXML2(document)
    }

    @Test("documents our writer produces", arguments: DifferentialDocuments.writtenDocuments)
    func writtenDocument(_ document: XMLCase) throws {
        #expect(fastPathValue(document.bytes) != nil, "the fast path declined our own output")
        checkAgainstLibXML2(document)
    }

    @Test(
        "corpus files edited at random",
        .enabled(if: DifferentialDocuments.corpus != nil, Comment(rawValue: Corpus.absentMessage)),
        arguments: DifferentialDocuments.editedDocuments)
    func editedDocument(_ document: XMLCase) {
        checkAgainstLibXML2(document)
    }

    private func checkAgainstLibXML2(_ document: XMLCase, sourceLocation: SourceLocation = #_sourceLocation) {
        let libxml2 = XMLReadOutcome(document.bytes, usingFastPath: false)
        if let fast = fastPathValue(document.bytes) {
            #expect(libxml2 == .value(fast), "the fast path read \(fast)", sourceLocation: sourceLocation)
        }
        #expect(XMLReadOutcome(document.bytes, usingFastPath: true) == libxml2, sourceLocation: sourceLocation)
    }

    /// How many of the documents libxml2 reads the fast path reads too, by where they come from. It reads UTF-8 only:
    /// UTF-16 and UTF-32 documents (the corpus has ten) are libxml2's.
    @Test(.enabled(if: DifferentialDocuments.corpus != nil, Comment(rawValue: Corpus.absentMessage)))
    func theFastPathReadsMostRealDocuments() {
        var taken: [String: Int] = [:]
        var readable: [String: Int] = [:]
        var declined: [String] = []
        var wide = 0
        for document in DifferentialDocuments.corpusDocuments + DifferentialDocuments.repositoryDocuments {
            guard case .value = XMLReadOutcome(document.bytes, usingFastPath: false) else { continue }
            guard document.bytes.withUnsafeBytes({ TextEncodingSniffer.detect($0).0 }) == .utf8 else {
                wide += 1
                continue
            }
            // `xml/macos-….plist` → `xml/macos`: the file's origin.
            let origin = String(document.name.prefix { $0 != "-" })
            readable[origin, default: 0] += 1
            if fastPathValue(document.bytes) != nil {
                taken[origin, default: 0] += 1
            } else {
                declined.append(document.name)
            }
        }
        let total = readable.values.reduce(0, +)
        let fast = taken.values.reduce(0, +)
        print(
            "XML fast path: \(fast) of the \(total) real UTF-8 documents libxml2 reads, beside \(wide) in UTF-16 or "
                + "UTF-32 ("
                + readable.keys.sorted().map { "\($0) \(taken[$0, default: 0])/\(readable[$0]!)" }.joined(
                    separator: ", ")
                + "); left to libxml2: " + declined.joined(separator: ", "))
        #expect(fast * 10 >= total * 9, "the fast path reads only \(fast) of \(total)")
        for origin in [
            "xml/macos", "xml/cpython", "xml/plistlib", "Domains/prefsd.plist", "Domains/.GlobalPreferences.plist",
        ]
        where readable[origin] != nil {
            #expect(
                taken[origin] == readable[origin], "\(origin): \(taken[origin, default: 0]) of \(readable[origin]!)")
        }
    }
}
