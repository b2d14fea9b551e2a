// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

@Suite struct PlistValueTests {
    @Test func integerKeepsBothRanges() {
        #expect(PlistInteger(UInt64.max).description == "18446744073709551615")
        #expect(PlistInteger(Int64.min).description == "-9223372036854775808")
        #expect(PlistInteger(UInt64(5)) == PlistInteger(Int64(5)))
        #expect(PlistInteger(UInt64(1) << 63).int64Value == nil)
        #expect(PlistInteger(Int64(-1)).uint64Value == nil)
        #expect(PlistInteger(Int64(-1)) < PlistInteger(UInt64.max))
    }

    @Test func realEqualityIsBitwise() {
        #expect(PlistValue.real(.nan) == .real(.nan))
        #expect(PlistValue.real(0.0) != .real(-0.0))
    }

    @Test(arguments: [
        ("2004-10-26T10:33:33Z", 120_479_613.0),
        ("2001-01-01T00:00:00Z", 0.0),
        ("1970-01-01T00:00:00Z", -978_307_200.0),
        ("0000-12-30T00:00:00Z", -63_114_076_800.0),
        ("4001-01-01T00:00:00Z", 63_113_904_000.0),
        ("0000-01-02T00:00:00Z", -63_145_440_000.0),
    ])
    func dateRoundTripsThroughText(text: String, seconds: Double) throws {
        let date = try #require(PlistDate(iso8601: text))
        #expect(date.secondsSinceReferenceDate == seconds)
        #expect(date.iso8601String == text)
    }

    @Test func dateFieldsCarryOver() throws {
        let date = try #require(PlistDate(iso8601: "2024-01-32T20:43:14Z"))
        #expect(date.iso8601String == "2024-02-01T20:43:14Z")
        #expect(date.defaultsString == "2024-02-01 20:43:14 +0000")
        #expect(PlistDate(iso8601: "2024-01-0xT00:00:00Z") == nil)
        #expect(PlistDate(secondsSinceReferenceDate: .infinity).iso8601String == nil)
    }
}
