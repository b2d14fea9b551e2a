import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// Random values through every writer and back, and through Python's plistlib as an independent implementation.
@Suite struct RoundTripPropertyTests {
    static let seeds: [UInt64] = Array(1...40)

    /// Text formats keep whole seconds of a date; binary keeps the exact double.
    static func wholeSeconds(_ value: PlistValue) -> PlistValue {
        switch value {
        case .date(let date):
            .date(PlistDate(secondsSinceReferenceDate: date.secondsSinceReferenceDate.rounded(.down)))
        case .array(let elements): .array(elements.map(wholeSeconds))
        case .dictionary(let entries): .dictionary(entries.mapValues(wholeSeconds))
        default: value
        }
    }

    @Test(arguments: seeds)
    func binaryRoundTripIsExact(seed: UInt64) throws {
        var generator = RandomPlist(seed: seed, profile: .binary)
        let value = generator.value()
        let decoded = try PlistSerialization.decode(try PlistSerialization.encode(value, format: .binary))
        #expect(decoded == value)
    }

    @Test(arguments: seeds)
    func xmlRoundTripIsExact(seed: UInt64) throws {
        var generator = RandomPlist(seed: seed, profile: .xml)
        let value = Self.wholeSeconds(generator.value())
        let decoded = try PlistSerialization.decode(try PlistSerialization.encode(value, format: .xml))
        #expect(decoded == value)
    }

    @Test(arguments: seeds)
    func openStepRoundTripIsExact(seed: UInt64) throws {
        var generator = RandomPlist(seed: seed, profile: .openStep)
        let value = generator.value()
        let (decoded, format) = try PlistSerialization.decode(
            try PlistSerialization.encode(value, format: .openStep), format: nil)
        #expect(format == .openStep)
        #expect(decoded == value)
    }

    @Test(arguments: seeds)
    func jsonRoundTripIsExact(seed: UInt64) throws {
        var generator = RandomPlist(seed: seed, profile: .json)
        let value = generator.value()
        let (decoded, format) = try PlistSerialization.decode(
            try PlistSerialization.encode(value, format: .json), format: nil)
        #expect(format == .json)
        #expect(decoded == value)
    }

    @Test func deepNestingRoundTripsUpToTheLimit() throws {
        var value: PlistValue = "leaf"
        for level in 0..<500 { value = level % 2 == 0 ? .array([value]) : .dictionary(["k": value]) }
        for format in [PlistFormat.xml, .binary, .openStep, .json] {
            #expect(try PlistSerialization.decode(try PlistSerialization.encode(value, format: format)) == value)
        }
        var tooDeep = value
        for _ in 0..<20 { tooDeep = .array([tooDeep]) }
        for format in [PlistFormat.xml, .binary, .openStep, .json] {
            let bytes = try PlistSerialization.encode(tooDeep, format: format)
            #expect(throws: PlistError.self) { try PlistSerialization.decode(bytes) }
        }
    }

    /// plistlib reads what we write, and we read what it writes, to equal values.
    @Test(arguments: [PlistFormat.xml, .binary])
    func pythonPlistlibAgrees(format: PlistFormat) throws {
        let directory = try TemporaryDirectory()
        var profile = RandomPlist.Profile.xml
        profile.uids = false  // plistlib reads XML uids as plain dictionaries
        profile.nonFiniteReals = false
        profile.carriageReturns = format != .xml  // plistlib writes a raw CR, which XML readers turn into LF
        for seed in UInt64(100)..<UInt64(120) {
            var generator = RandomPlist(seed: seed, profile: profile)
            let value = Self.wholeSeconds(generator.value())
            try Data(try PlistSerialization.encode(value, format: format))
                .write(to: URL(fileURLWithPath: directory.file("ours-\(seed).plist")))
        }
        let script = """
            import glob, plistlib, sys, os
            fmt = plistlib.FMT_XML if sys.argv[2] == "xml" else plistlib.FMT_BINARY
            for path in sorted(glob.glob(os.path.join(sys.argv[1], "ours-*.plist"))):
                value = plistlib.load(open(path, "rb"))
                open(path.replace("ours-", "theirs-"), "wb").write(plistlib.dumps(value, fmt=fmt, sort_keys=True))
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, directory.path, format == .xml ? "xml" : "binary"]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0, "plistlib could not read our output")
        for seed in UInt64(100)..<UInt64(120) {
            let ours = try PlistSerialization.decode(
                Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("ours-\(seed).plist")))))
            let theirs = try PlistSerialization.decode(
                Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("theirs-\(seed).plist")))))
            #expect(theirs == ours, "seed \(seed): plistlib's rewrite differs")
        }
    }
}
