// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import Testing

/// One row of the coercion table in docs/PREFERENCES.md: a stored value and what each typed getter reads from it.
/// `nil` means "cannot be read as this type": the `UserDefaults` getters then return 0, 0.0, false or nil, and a
/// typed key its default.
struct CoercionCase: Sendable, CustomTestStringConvertible {
    var stored: PlistValue
    var integer: Int?
    var double: Double?
    var bool: Bool?
    var string: String?
    var url: String?

    var testDescription: String { "\(stored.typeName) \(stored.defaultsDescription)" }

    static let table: [CoercionCase] = [
        // Booleans
        CoercionCase(stored: true, integer: 1, double: 1, bool: true, string: "1"),
        CoercionCase(stored: false, integer: 0, double: 0, bool: false, string: "0"),
        // Integers
        CoercionCase(stored: 42, integer: 42, double: 42, bool: true, string: "42"),
        CoercionCase(stored: 0, integer: 0, double: 0, bool: false, string: "0"),
        CoercionCase(stored: -7, integer: -7, double: -7, bool: true, string: "-7"),
        CoercionCase(
            stored: .integer(PlistInteger(UInt64.max)), integer: nil, double: Double(UInt64.max), bool: true,
            string: "18446744073709551615"),
        // Reals: the integer is the greatest integer not above the real, as Apple documents (2.67 → 2).
        CoercionCase(stored: 2.67, integer: 2, double: 2.67, bool: true, string: "2.67"),
        CoercionCase(stored: -2.5, integer: -3, double: -2.5, bool: true, string: "-2.5"),
        CoercionCase(stored: 1.0, integer: 1, double: 1, bool: true, string: "1"),
        CoercionCase(stored: 0.0, integer: 0, double: 0, bool: false, string: "0"),
        CoercionCase(stored: 1e20, integer: nil, double: 1e20, bool: true, string: "1e+20"),
        CoercionCase(stored: .real(.infinity), integer: nil, double: .infinity, bool: true, string: "inf"),
        CoercionCase(stored: .real(.nan), integer: nil, double: .nan, bool: nil, string: "nan"),
        // Numeric strings
        CoercionCase(stored: "123", integer: 123, double: 123, bool: true, string: "123"),
        CoercionCase(stored: " 42\n", integer: 42, double: 42, bool: true, string: " 42\n"),
        CoercionCase(stored: "-12", integer: -12, double: -12, bool: true, string: "-12"),
        CoercionCase(stored: "+5", integer: 5, double: 5, bool: true, string: "+5"),
        CoercionCase(stored: "3.9", integer: 3, double: 3.9, bool: true, string: "3.9"),
        CoercionCase(stored: "1e3", integer: 1000, double: 1000, bool: true, string: "1e3"),
        CoercionCase(stored: "0", integer: 0, double: 0, bool: false, string: "0"),
        CoercionCase(stored: "1", integer: 1, double: 1, bool: true, string: "1"),
        CoercionCase(stored: "2", integer: 2, double: 2, bool: true, string: "2"),
        CoercionCase(stored: "0.0", integer: 0, double: 0, bool: false, string: "0.0"),
        // Other strings: the Boolean words, and text that is not a number (never read as a prefix).
        CoercionCase(stored: "YES", integer: nil, double: nil, bool: true, string: "YES"),
        CoercionCase(stored: "yes", integer: nil, double: nil, bool: true, string: "yes"),
        CoercionCase(stored: "true", integer: nil, double: nil, bool: true, string: "true"),
        CoercionCase(stored: "TRUE", integer: nil, double: nil, bool: true, string: "TRUE"),
        CoercionCase(stored: "NO", integer: nil, double: nil, bool: false, string: "NO"),
        CoercionCase(stored: "false", integer: nil, double: nil, bool: false, string: "false"),
        CoercionCase(stored: "Y", integer: nil, double: nil, bool: nil, string: "Y"),
        CoercionCase(stored: "12abc", integer: nil, double: nil, bool: nil, string: "12abc"),
        CoercionCase(stored: "abc", integer: nil, double: nil, bool: nil, string: "abc"),
        CoercionCase(stored: "", integer: nil, double: nil, bool: nil, string: ""),
        // URLs: whole strings with a scheme, absolute and ~ paths as file URLs, nothing relative.
        CoercionCase(
            stored: "https://example.com/a%20b?q=1#top", integer: nil, double: nil, bool: nil,
            string: "https://example.com/a%20b?q=1#top", url: "https://example.com/a%20b?q=1#top"),
        CoercionCase(
            stored: "/tmp/a b", integer: nil, double: nil, bool: nil, string: "/tmp/a b", url: "file:///tmp/a%20b"),
        CoercionCase(
            stored: "~/notes.txt", integer: nil, double: nil, bool: nil, string: "~/notes.txt",
            url: "file://\(homeDirectory)/notes.txt"),
        CoercionCase(stored: "relative/path", integer: nil, double: nil, bool: nil, string: "relative/path"),
        // Types no getter converts.
        CoercionCase(stored: .date(PlistDate(secondsSinceReferenceDate: 0)), integer: nil, double: nil, bool: nil),
        CoercionCase(stored: .data([1, 2]), integer: nil, double: nil, bool: nil),
        CoercionCase(stored: ["1"], integer: nil, double: nil, bool: nil),
        CoercionCase(stored: ["k": 1], integer: nil, double: nil, bool: nil),
    ]

    static var homeDirectory: String {
        ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
    }
}

/// The coercion table, case by case: each typed getter and each typed key, on the same stored value.
@Suite struct CoercionTests {
    static let prefs = try! Preferences.inMemory(domain: "com.example.Coercion")

    @Test(arguments: CoercionCase.table.enumerated().map { $0 })
    func gettersAndTypedKeysReadTheStoredValueByTheTable(index: Int, row: CoercionCase) throws {
        let prefs = Self.prefs
        let key = "case\(index)"
        try prefs.setValue(row.stored, forKey: key)

        #expect(prefs.integer(forKey: key) == row.integer ?? 0)
        #expect(same(prefs.double(forKey: key), row.double ?? 0))
        #expect(same(Double(prefs.float(forKey: key)), Double(Float(row.double ?? 0))))
        #expect(prefs.bool(forKey: key) == row.bool ?? false)
        #expect(prefs.string(forKey: key) == row.string)
        #expect(prefs.url(forKey: key)?.absoluteString == row.url)

        #expect(prefs[Preferences.Key(key, default: -99)] == row.integer ?? -99)
        #expect(same(prefs[Preferences.Key(key, default: -99.5)], row.double ?? -99.5))
        #expect(prefs[Preferences.Key<Bool?>(key, default: nil)] == row.bool)
        #expect(prefs[Preferences.Key<String?>(key, default: nil)] == row.string)
        #expect(prefs[Preferences.Key<URL?>(key, default: nil)]?.absoluteString == row.url)
    }

    @Test func dataArraysAndDictionariesReadOnlyAsThemselves() throws {
        let prefs = try Preferences.inMemory()
        try prefs.setValue(.data([1, 2]), forKey: "data")
        try prefs.setValue(["a", 1], forKey: "mixed")
        try prefs.setValue(["a", "b"], forKey: "strings")
        try prefs.setValue(["k": "v"], forKey: "dict")
        try prefs.setValue("text", forKey: "text")
        #expect(prefs.data(forKey: "data") == Data([1, 2]))
        #expect(prefs.data(forKey: "text") == nil)
        #expect(prefs.array(forKey: "dict") == nil)
        #expect(prefs.dictionary(forKey: "strings") == nil)
        #expect(prefs.stringArray(forKey: "mixed") == nil)
        #expect(prefs.stringArray(forKey: "strings") == ["a", "b"])
        #expect(prefs.stringArray(forKey: "text") == nil)
        #expect(prefs.dictionary(forKey: "dict")?["k"] as? String == "v")
        #expect(prefs.url(forKey: "data") == nil)
    }

    @Test(arguments: [
        (PlistValue.integer(300), Int8?.none, UInt8?.none, Int16?.some(300)),
        (PlistValue.integer(-1), Int8?.some(-1), UInt8?.none, Int16?.some(-1)),
        (PlistValue.string("255"), Int8?.none, UInt8?.some(255), Int16?.some(255)),
        (PlistValue.real(127.9), Int8?.some(127), UInt8?.some(127), Int16?.some(127)),
    ])
    func integerKeysOfEveryWidthReadOnlyValuesThatFit(
        stored: PlistValue, int8: Int8?, uint8: UInt8?, int16: Int16?
    )
        throws
    {
        let prefs = try Preferences.inMemory()
        try prefs.setValue(stored, forKey: "n")
        #expect(prefs[Preferences.Key<Int8?>("n", default: nil)] == int8)
        #expect(prefs[Preferences.Key<UInt8?>("n", default: nil)] == uint8)
        #expect(prefs[Preferences.Key<Int16?>("n", default: nil)] == int16)
        #expect(prefs[Preferences.Key<UInt64?>("n", default: nil)] == (stored == .integer(-1) ? nil : UInt64(int16!)))
    }

    /// Equality that treats NaN as equal to NaN.
    private func same(_ a: Double, _ b: Double) -> Bool {
        a.isNaN ? b.isNaN : a == b
    }
}
