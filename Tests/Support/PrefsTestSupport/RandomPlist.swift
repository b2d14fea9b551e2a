// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// Generates random property-list values from a seed, for round-trip property tests.
///
/// Values reach every type and its edges: Int64/UInt64 bounds, ±0, ±infinity, NaN, subnormals, dates far in
/// the past and future, strings with markup characters, control characters and non-BMP text, deep nesting
/// and large arrays.
public struct RandomPlist: Sendable {
    /// What the generated values may contain, so each format gets only what it can hold.
    public struct Profile: Sendable {
        public var integers = true
        public var reals = true
        public var nonFiniteReals = true
        public var booleans = true
        public var dates = true
        public var nonFiniteDates = false
        public var data = true
        public var uids = false
        /// Control characters other than tab, LF and CR (XML 1.0 cannot hold them).
        public var controlCharacters = false
        /// Carriage returns (XML readers normalise a raw CR; writers must escape it).
        public var carriageReturns = true
        /// Dates only in years 1–9999, the range of Python's `datetime`.
        public var datesWithinFourDigitYears = false

        public init() {}

        /// Every type binary plists hold, non-finite dates and uids included.
        public static let binary: Profile = {
            var profile = Profile()
            profile.nonFiniteDates = true
            profile.uids = true
            profile.controlCharacters = true
            return profile
        }()
        /// What XML holds exactly.
        public static let xml: Profile = {
            var profile = Profile()
            profile.uids = true
            return profile
        }()
        /// OpenStep: strings, data, arrays and dictionaries only.
        public static let openStep: Profile = {
            var profile = Profile()
            profile.integers = false
            profile.reals = false
            profile.booleans = false
            profile.dates = false
            profile.controlCharacters = true
            return profile
        }()
        /// JSON: no dates, data, uids or non-finite reals.
        public static let json: Profile = {
            var profile = Profile()
            profile.nonFiniteReals = false
            profile.dates = false
            profile.data = false
            profile.controlCharacters = true
            return profile
        }()
    }

    private var state: UInt64
    private let profile: Profile

    /// Creates a generator.
    public init(seed: UInt64, profile: Profile) {
        self.state = seed &+ 0x9E37_79B9_7F4A_7C15
        self.profile = profile
    }

    /// splitmix64: small, fast, and the same sequence on every platform.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A random value nested at most `maxDepth` deep; the root is a container.
    public mutating func value(maxDepth: Int = 6) -> PlistValue {
        below(2) == 0 ? dictionary(depth: maxDepth) : array(depth: maxDepth)
    }

    private mutating func element(depth: Int) -> PlistValue {
        if depth > 0, below(5) == 0 { return below(2) == 0 ? dictionary(depth: depth - 1) : array(depth: depth - 1) }
        return scalar()
    }

    private mutating func dictionary(depth: Int) -> PlistValue {
        var entries: PlistDictionary = [:]
        let count = below(10) == 0 ? below(300) : below(8)
        for _ in 0..<count { entries[string()] = element(depth: depth) }
        return .dictionary(entries)
    }

    private mutating func array(depth: Int) -> PlistValue {
        let count = below(40) == 0 ? 256 + below(200) : below(8)
        return .array((0..<count).map { _ in element(depth: depth) })
    }

    /// A random scalar allowed by the profile.
    public mutating func scalar() -> PlistValue {
        while true {
            switch below(8) {
            case 0: return .string(string())
            case 1 where profile.integers: return .integer(integer())
            case 2 where profile.reals: return .real(real())
            case 3 where profile.booleans: return .bool(below(2) == 0)
            case 4 where profile.dates: return .date(date())
            case 5 where profile.data: return .data((0..<below(70)).map { _ in UInt8(truncatingIfNeeded: next()) })
            case 6 where profile.uids: return .uid(below(2) == 0 ? UInt64(below(300)) : UInt64(UInt32.max))
            case 7: return .string(string())
            default: continue
            }
        }
    }

    private mutating func integer() -> PlistInteger {
        let edges: [PlistInteger] = [
            0, 1, -1, 127, 128, 255, 256, 65_535, 65_536, PlistInteger(Int64(Int32.max)),
            PlistInteger(Int64(UInt32.max)),
            PlistInteger(Int64.max), PlistInteger(Int64.min), PlistInteger(UInt64.max), PlistInteger(UInt64(1) << 63),
        ]
        switch below(3) {
        case 0: return edges[below(edges.count)]
        case 1: return PlistInteger(Int64(bitPattern: next()))
        default: return PlistInteger(Int64(below(1000)) - 500)
        }
    }

    private mutating func real() -> Double {
        var edges: [Double] = [
            0.0, -0.0, 0.5, 32.5, 1e-300, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
            -1.5, 1e16, 123_456.789,
        ]
        if profile.nonFiniteReals { edges += [.infinity, -.infinity, .nan] }
        if below(2) == 0 { return edges[below(edges.count)] }
        let candidate = Double(bitPattern: next())
        return candidate.isFinite || profile.nonFiniteReals ? candidate : 0.25
    }

    private mutating func date() -> PlistDate {
        var edges: [Double] = [0, 63_113_904_000, -978_307_200, 1e10, -1e10]
        if !profile.datesWithinFourDigitYears { edges.append(-63_114_076_800) }  // NSDate.distantPast, year 0
        if profile.nonFiniteDates { edges += [.infinity, .nan] }
        // Text formats keep whole seconds only.
        return PlistDate(
            secondsSinceReferenceDate: below(2) == 0
                ? edges[below(edges.count)]
                : Double(
                    Int64(bitPattern: next()) % (profile.datesWithinFourDigitYears ? 60_000_000_000 : 100_000_000_000)))
    }

    /// A random string from a palette of hard cases.
    public mutating func string() -> String {
        var palette: [String] = [
            "a", "Z", "0", " ", "<", ">", "&", "]]>", "\"", "'", "\\", "\t", "\n", "é", "Å", "中", "文", "😀", "👩‍💻",
            "\u{FEFF}", "e\u{301}", "key", ".", "-", "_", "=", ";", "(", "{", "//", "/*", "$",
        ]
        if profile.carriageReturns { palette.append("\r") }
        if profile.controlCharacters { palette += ["\u{1}", "\u{7}", "\u{1B}", "\u{0}"] }
        let length = below(12) == 0 ? 200 + below(2000) : below(10)
        var text = ""
        for _ in 0..<length { text += palette[below(palette.count)] }
        return text
    }
}
