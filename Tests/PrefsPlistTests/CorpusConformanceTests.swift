// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsTestSupport
import Testing

/// Every file of the shared conformance corpus, through the public entry point with format detection.
@Suite struct CorpusConformanceTests {
    static let corpus: Corpus? = try? Corpus.load()

    static func files(_ expectations: Corpus.Expectation...) -> [Corpus.File] {
        (corpus?.files ?? []).filter { expectations.contains($0.expectation) }
    }

    @Test func corpusIsPresentOrSkipped() throws {
        guard let corpus = Self.corpus else {
            print(Corpus.absentMessage)
            return
        }
        #expect(corpus.files.count > 350, "SOURCES.md lists every file; only \(corpus.files.count) indexed")
    }

    @Test(arguments: files(.accept))
    func acceptedFileDecodesToItsExpectedValue(file: Corpus.File) throws {
        let decoded = try PlistSerialization.decode(try file.bytes())
        if let expected = try file.expectedValue() {
            #expect(decoded == Self.followingCoreFoundation(expected, for: file), "\(file)")
        }
    }

    /// The one corpus value that comes from swift-foundation where CoreFoundation (what `defaults` and
    /// `plutil` use) differs: CFOldStylePList.c reads `\f` and `\v` as U+000C and U+000B, swift-foundation as
    /// U+0012 and U+0011. We follow CoreFoundation (docs/PLIST-CONFORMANCE.md).
    static func followingCoreFoundation(_ expected: PlistValue, for file: Corpus.File) -> PlistValue {
        guard file.relativePath == "openstep/swift-foundation-inline-slashed-literals.plist",
            case .array(let elements) = expected
        else { return expected }
        return .array(
            elements.map { element in
                switch element {
                case .string("\u{12}"): .string("\u{0C}")
                case .string("\u{11}"): .string("\u{0B}")
                default: element
                }
            })
    }

    @Test(arguments: files(.reject))
    func rejectedFileFailsWithAnError(file: Corpus.File) throws {
        #expect(throws: PlistError.self, "\(file)") { try PlistSerialization.decode(try file.bytes()) }
    }

    // A hang fails this instead of stalling the run. The limit runs from the start of all the cases at once, which
    // share the test pool with the blocking end-to-end tests, so it is set well above the whole run (about 150 s on
    // two cores): at one minute it tripped on a loaded machine with no case slow.
    @Test(.timeLimit(.minutes(10)), arguments: files(.hostile))
    func hostileFileFinishesWithoutCrashing(file: Corpus.File) throws {
        let bytes = try file.bytes()
        do {
            let value = try PlistSerialization.decode(bytes)
            // Whatever was accepted is a bounded value that writes back out.
            #expect(value.depth <= PlistLimits.default.maxDepth)
            _ = try? PlistSerialization.encode(value, format: .binary)
        } catch let error as PlistError {
            #expect(!error.message.isEmpty)
        }
    }
}
