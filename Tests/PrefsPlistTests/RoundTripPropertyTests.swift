// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// Random values through every writer and back, and through Python's plistlib as an independent implementation.
@Suite struct RoundTripPropertyTests {
    static let seeds: [UInt64] = Array(1...40)

    /// What text formats keep: whole seconds of a date (binary keeps the exact double) and one NaN (the
    /// text `nan` has no payload or sign).
    static func textCanonical(_ value: PlistValue) -> PlistValue {
        switch value {
        case .date(let date):
            .date(PlistDate(secondsSinceReferenceDate: date.secondsSinceReferenceDate.rounded(.down)))
        case .real(let real) where real.isNaN: .real(.nan)
        case .array(let elements): .array(elements.map(textCanonical))
        case .dictionary(let entries): .dictionary(entries.mapValues(textCanonical))
        default: value
        }
    }

    /// plistlib's binary writer uniques `-0.0` and `0.0` as one object (they compare equal in Python).
    static func positiveZeros(_ value: PlistValue) -> PlistValue {
        switch value {
        case .real(let real) where real == 0: .real(0)
        case .array(let elements): .array(elements.map(positiveZeros))
        case .dictionary(let entries): .dictionary(entries.mapValues(positiveZeros))
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
        let value = Self.textCanonical(generator.value())
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
        // `{}` is OpenStep too; anything else with a key or a bracket is detected as JSON.
        #expect(format == .json || value == .dictionary([:]))
        #expect(decoded == value)
    }

    @Test func deepNestingRoundTripsUpToTheLimit() throws {
        var value: PlistValue = "leaf"
        for level in 0..<PlistLimits.default.maxDepth {
            value = level % 2 == 0 ? .array([value]) : .dictionary(["k": value])
        }
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
        profile.datesWithinFourDigitYears = true
        for seed in UInt64(100)..<UInt64(120) {
            var generator = RandomPlist(seed: seed, profile: profile)
            let value = Self.positiveZeros(Self.textCanonical(generator.value(maxDepth: 4)))
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
        let errors = Pipe()
        python.standardError = errors
        try python.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        try #require(python.terminationStatus == 0, "plistlib could not read our output: \(message)")
        for seed in UInt64(100)..<UInt64(120) {
            let ours = try PlistSerialization.decode(
                Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("ours-\(seed).plist")))))
            let theirs = try PlistSerialization.decode(
                Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("theirs-\(seed).plist")))))
            #expect(theirs == ours, "seed \(seed): plistlib's rewrite differs")
        }
    }
}
