// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization
import Testing

@testable import PrefsPlist

// MARK: - Models

private struct Window: Codable, Equatable {
    var title: String
    var width: Int
    var scale: Double
    var visible: Bool
    var tags: [String]
    var origin: Point
    var note: String?
}

private struct Point: Codable, Equatable {
    var x: Int32
    var y: Int32
}

private enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case rectangle(Double, Double)
    case empty
}

private enum Mode: String, Codable, CodingKeyRepresentable {
    case light, dark
}

private struct Everything: Codable, Equatable {
    var shapes: [Shape]
    var byName: [String: Int]
    var byNumber: [Int: String]
    var byMode: [Mode: Bool]
    var unique: Set<String>
    var bytes: [UInt8]
    var grid: [[Int]]
    var optionalArray: [Int]?
    var nestedOptional: Int??
    var mode: Mode
}

/// A stand-in for Foundation's `Date`: its Codable form is a number, its plist form a date.
private struct Timestamp: Codable, Equatable, PlistRepresentable {
    var seconds: Double

    init(seconds: Double) { self.seconds = seconds }

    var plistValue: PlistValue { .date(PlistDate(secondsSinceReferenceDate: seconds)) }

    init?(plistValue: PlistValue) {
        guard case .date(let date) = plistValue else { return nil }
        seconds = date.secondsSinceReferenceDate
    }
}

private struct Native: Codable, Equatable {
    var when: PlistDate
    var stamp: Timestamp
    var big: PlistInteger
    var anything: PlistValue
    var stamps: [Timestamp]
    var optionalStamp: Timestamp?
}

private class Animal: Codable {
    var name: String

    init(name: String) { self.name = name }
}

/// Inheritance through `superEncoder()`, as Apple recommends: the parent's keys go under `super`.
private final class Dog: Animal {
    var goodBoy: Bool

    init(name: String, goodBoy: Bool) {
        self.goodBoy = goodBoy
        super.init(name: name)
    }

    private enum CodingKeys: String, CodingKey { case goodBoy }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        goodBoy = try container.decode(Bool.self, forKey: .goodBoy)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(goodBoy, forKey: .goodBoy)
        try super.encode(to: container.superEncoder())
    }
}

/// Inheritance sharing one container: parent and child keys side by side.
private final class Cat: Animal {
    var lives: UInt8

    init(name: String, lives: UInt8) {
        self.lives = lives
        super.init(name: name)
    }

    private enum CodingKeys: String, CodingKey { case lives }

    required init(from decoder: any Decoder) throws {
        lives = try decoder.container(keyedBy: CodingKeys.self).decode(UInt8.self, forKey: .lives)
        try super.init(from: decoder)
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(lives, forKey: .lives)
        try super.encode(to: encoder)
    }
}

/// Writes with nested containers and `superEncoder(forKey:)` by hand.
private struct Hand: Codable, Equatable {
    var left: [Int]
    var right: String
    var extra: Int

    private enum Keys: String, CodingKey { case outer, list, inner, name, custom }
    private enum InnerKeys: String, CodingKey { case name }

    init(left: [Int], right: String, extra: Int) {
        self.left = left
        self.right = right
        self.extra = extra
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var outer = container.nestedContainer(keyedBy: Keys.self, forKey: .outer)
        var list = outer.nestedUnkeyedContainer(forKey: .list)
        for value in left { try list.encode(value) }
        var inner = list.nestedContainer(keyedBy: InnerKeys.self)
        try inner.encode(right, forKey: .name)
        var innerList = list.nestedUnkeyedContainer()
        try innerList.encode(extra)
        var custom = container.superEncoder(forKey: .custom).singleValueContainer()
        try custom.encode(extra)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let outer = try container.nestedContainer(keyedBy: Keys.self, forKey: .outer)
        var list = try outer.nestedUnkeyedContainer(forKey: .list)
        var left: [Int] = []
        while let count = list.count, list.currentIndex < count - 2 { left.append(try list.decode(Int.self)) }
        let inner = try list.nestedContainer(keyedBy: InnerKeys.self)
        var innerList = try list.nestedUnkeyedContainer()
        self.left = left
        right = try inner.decode(String.self, forKey: .name)
        extra = try innerList.decode(Int.self)
        #expect(try container.superDecoder(forKey: .custom).singleValueContainer().decode(Int.self) == extra)
    }
}

private struct UserInfoAware: Codable, Equatable {
    static let key = CodingUserInfoKey(rawValue: "prefix")!
    var text: String

    init(text: String) { self.text = text }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode((encoder.userInfo[Self.key] as? String ?? "") + text)
    }

    init(from decoder: any Decoder) throws {
        let prefix = decoder.userInfo[Self.key] as? String ?? ""
        text = String(try decoder.singleValueContainer().decode(String.self).dropFirst(prefix.count))
    }
}

private struct EncodesNothing: Encodable {
    func encode(to encoder: any Encoder) throws {}
}

private struct MisusesContainers: Encodable {
    func encode(to encoder: any Encoder) throws {
        var list = encoder.unkeyedContainer()
        try list.encode(1)
        var keyed = encoder.container(keyedBy: PlistCodingKey.self)
        try keyed.encode(2, forKey: PlistCodingKey(stringValue: "two"))
    }
}

private struct Wide: Codable, Equatable {
    var value: Int128
}

private struct Holder<Value: Codable & Equatable>: Codable, Equatable {
    var value: Value
}

// MARK: - Tests

@Suite struct PlistCodableTests {
    /// Lone scalars are encoded too, so that every shape can be checked on its own (the default refusal of these
    /// fragments is checked in PlistCodableFoundationTests).
    private let encoder = {
        var encoder = PlistEncoder()
        encoder.allowsFragments = true
        return encoder
    }()
    private let decoder = PlistDecoder()

    private func roundTrip<T: Codable & Equatable>(_ value: T) throws -> PlistValue {
        let encoded = try encoder.encode(value)
        #expect(try decoder.decode(T.self, from: encoded) == value)
        return encoded
    }

    @Test func structBecomesNativeDictionary() throws {
        let window = Window(
            title: "Main", width: 640, scale: 2.5, visible: true, tags: ["a", "b"], origin: Point(x: -3, y: 4),
            note: nil)
        let encoded = try roundTrip(window)
        #expect(
            encoded == [
                "title": "Main", "width": 640, "scale": 2.5, "visible": true, "tags": ["a", "b"],
                "origin": ["x": -3, "y": 4],
            ])
        var noted = window
        noted.note = "hello"
        #expect(try roundTrip(noted)["note"] == "hello")
    }

    @Test func collectionsEnumsAndDictionariesRoundTrip() throws {
        let value = Everything(
            shapes: [.circle(radius: 1.5), .rectangle(2, 3), .empty],
            byName: ["one": 1, "two": 2], byNumber: [1: "one", -20: "minus twenty"], byMode: [.dark: true],
            unique: ["x", "y"], bytes: [0, 127, 255], grid: [[1, 2], [], [3]], optionalArray: nil,
            nestedOptional: .some(.some(5)), mode: .light)
        let encoded = try roundTrip(value)
        #expect(
            encoded["shapes"] == [["circle": ["radius": 1.5]], ["rectangle": ["_0": 2.0, "_1": 3.0]], ["empty": [:]]])
        #expect(encoded["byName"] == ["one": 1, "two": 2])
        #expect(encoded["byNumber"] == ["1": "one", "-20": "minus twenty"])
        #expect(encoded["byMode"] == ["dark": true])
        #expect(encoded["bytes"] == [0, 127, 255], "[UInt8] keeps its Codable meaning: an array of integers")
        #expect(encoded["optionalArray"] == nil)
        #expect(encoded["nestedOptional"] == 5)
        #expect(encoded["mode"] == "light")
        let unique = try #require(encoded["unique"]?.arrayValue)
        #expect(Set(unique) == ["x", "y"])
    }

    @Test func classInheritanceRoundTrips() throws {
        let dog = Dog(name: "Rex", goodBoy: true)
        let encodedDog = try encoder.encode(dog)
        #expect(encodedDog == ["goodBoy": true, "super": ["name": "Rex"]])
        let decodedDog = try decoder.decode(Dog.self, from: encodedDog)
        #expect(decodedDog.name == "Rex" && decodedDog.goodBoy)

        let cat = Cat(name: "Tom", lives: 9)
        let encodedCat = try encoder.encode(cat)
        #expect(encodedCat == ["lives": 9, "name": "Tom"])
        let decodedCat = try decoder.decode(Cat.self, from: encodedCat)
        #expect(decodedCat.name == "Tom" && decodedCat.lives == 9)
    }

    @Test func nestedContainersAndSuperEncoderForKey() throws {
        let hand = Hand(left: [1, 2], right: "r", extra: 7)
        let encoded = try roundTrip(hand)
        #expect(encoded == ["outer": ["list": [1, 2, ["name": "r"], [7]]], "custom": 7])
    }

    @Test func userInfoReachesEveryLevel() throws {
        var encoder = PlistEncoder()
        encoder.userInfo[UserInfoAware.key] = ">"
        var decoder = PlistDecoder()
        decoder.userInfo[UserInfoAware.key] = ">"
        let value = Holder(value: [UserInfoAware(text: "a")])
        let encoded = try encoder.encode(value)
        #expect(encoded == ["value": [">a"]])
        #expect(try decoder.decode(Holder<[UserInfoAware]>.self, from: encoded) == value)
    }

    @Test func plistRepresentableTypesAreStoredNatively() throws {
        let native = Native(
            when: PlistDate(secondsSinceReferenceDate: 12.5), stamp: Timestamp(seconds: 99),
            big: PlistInteger(UInt64.max), anything: ["deep": [.data([1, 2]), .uid(3), .null]],
            stamps: [Timestamp(seconds: 1)], optionalStamp: nil)
        let encoded = try roundTrip(native)
        #expect(
            encoded == [
                "when": .date(PlistDate(secondsSinceReferenceDate: 12.5)),
                "stamp": .date(PlistDate(secondsSinceReferenceDate: 99)),
                "big": .integer(PlistInteger(UInt64.max)),
                "anything": ["deep": [.data([1, 2]), .uid(3), .null]],
                "stamps": [.date(PlistDate(secondsSinceReferenceDate: 1))],
            ])
        #expect(try encoder.encode(Timestamp(seconds: 5)) == .date(PlistDate(secondsSinceReferenceDate: 5)))
        #expect(try encoder.encode(Optional(Timestamp(seconds: 5))) == .date(PlistDate(secondsSinceReferenceDate: 5)))
        #expect(try decoder.decode(PlistValue.self, from: .uid(4)) == .uid(4))
    }

    @Test func representableRejectsTheWrongPlistType() throws {
        let error = try #require(throws: PlistError.self) {
            try decoder.decode(Holder<Timestamp>.self, from: ["value": 5])
        }
        #expect(error.code == .typeMismatch)
        #expect(error.message.contains("Timestamp") && error.message.contains("integer"))
        #expect(error.position == .codingPath("value"))
    }

    @Test(arguments: [
        (Int64(Int8.min), Int64(Int8.max)), (Int64(Int16.min), Int64(Int16.max)),
        (Int64(Int32.min), Int64(Int32.max)), (Int64.min, Int64.max),
    ])
    func signedBoundsRoundTrip(minimum: Int64, maximum: Int64) throws {
        func check<T: FixedWidthInteger & Codable>(_ type: T.Type) throws {
            guard T.bitWidth == 64 || Int64(T.min) == minimum else { return }
            #expect(try roundTrip(Holder(value: T.min)) == ["value": .integer(PlistInteger(minimum))])
            #expect(try roundTrip(Holder(value: T.max)) == ["value": .integer(PlistInteger(maximum))])
            #expect(
                try roundTrip([T.min, T.max]) == [.integer(PlistInteger(minimum)), .integer(PlistInteger(maximum))])
            #expect(try roundTrip(T.max) == .integer(PlistInteger(maximum)))
        }
        switch minimum {
        case Int64(Int8.min): try check(Int8.self)
        case Int64(Int16.min): try check(Int16.self)
        case Int64(Int32.min): try check(Int32.self)
        default:
            try check(Int64.self)
            try check(Int.self)
        }
    }

    @Test func unsignedBoundsRoundTrip() throws {
        #expect(try roundTrip(Holder(value: UInt8.max)) == ["value": 255])
        #expect(try roundTrip(Holder(value: UInt16.max)) == ["value": 65535])
        #expect(try roundTrip(Holder(value: UInt32.max)) == ["value": 4_294_967_295])
        #expect(try roundTrip(Holder(value: UInt64.max)) == ["value": .integer(PlistInteger(UInt64.max))])
        #expect(try roundTrip(Holder(value: UInt.max)) == ["value": .integer(PlistInteger(UInt64.max))])
        #expect(try roundTrip([UInt64.min, UInt64.max]) == [0, .integer(PlistInteger(UInt64.max))])
        #expect(try roundTrip(UInt64(1) << 63) == .integer(PlistInteger(UInt64(1) << 63)))
        #expect(try roundTrip(Wide(value: Int128(UInt64.max))) == ["value": .integer(PlistInteger(UInt64.max))])
        #expect(try roundTrip(Wide(value: Int128(Int64.min))) == ["value": .integer(PlistInteger(Int64.min))])
        #expect(try roundTrip(Holder(value: UInt128(UInt64.max))) == ["value": .integer(PlistInteger(UInt64.max))])
    }

    @Test func floatingPointRoundTrips() throws {
        #expect(
            try roundTrip(Holder(value: Double.greatestFiniteMagnitude)) == ["value": .real(.greatestFiniteMagnitude)])
        #expect(try roundTrip(Holder(value: -0.0)) == ["value": .real(-0.0)])
        #expect(try roundTrip(Holder(value: Float(0.1))) == ["value": .real(Double(Float(0.1)))])
        #expect(try roundTrip(Holder(value: Float.infinity)) == ["value": .real(.infinity)])
        let nan = try encoder.encode(Double.nan)
        #expect(try decoder.decode(Double.self, from: nan).isNaN)
        #expect(try decoder.decode(Double.self, from: 3) == 3.0, "a Double accepts an integer")
        #expect(try decoder.decode(Float.self, from: .integer(PlistInteger(UInt64.max))) == Float(UInt64.max))
        #expect(try decoder.decode(Int8.self, from: .real(-128.0)) == -128, "an integral real is accepted")
    }

    @Test(arguments: [
        (PlistValue.integer(256), "UInt8", "integer 256 is out of range for UInt8"),
        (PlistValue.integer(-129), "Int8", "integer -129 is out of range for Int8"),
        (PlistValue.integer(-1), "UInt", "integer -1 is out of range for UInt"),
        (PlistValue.integer(-1), "UInt64", "integer -1 is out of range for UInt64"),
        (
            PlistValue.integer(PlistInteger(UInt64.max)), "Int64",
            "integer 18446744073709551615 is out of range for Int64"
        ),
        (PlistValue.integer(PlistInteger(UInt64.max)), "Int", "integer 18446744073709551615 is out of range for Int"),
        (PlistValue.integer(32768), "Int16", "integer 32768 is out of range for Int16"),
        (PlistValue.integer(4_294_967_296), "UInt32", "integer 4294967296 is out of range for UInt32"),
        (PlistValue.integer(-1), "UInt128", "integer -1 is out of range for UInt128"),
        (PlistValue.real(3.5), "Int", "float 3.5 is not exactly representable as Int"),
        (PlistValue.real(1e300), "Float", "float 1e+300 is out of range for Float"),
    ])
    func rangeErrorsNameTheValueAndType(value: PlistValue, typeName: String, message: String) throws {
        let document: PlistValue = ["list": [["n": 0], ["n": value]]]
        let error = try #require(throws: PlistError.self) {
            switch typeName {
            case "UInt8": _ = try decoder.decode([String: [[String: UInt8]]].self, from: document)
            case "Int8": _ = try decoder.decode([String: [[String: Int8]]].self, from: document)
            case "UInt": _ = try decoder.decode([String: [[String: UInt]]].self, from: document)
            case "UInt64": _ = try decoder.decode([String: [[String: UInt64]]].self, from: document)
            case "Int64": _ = try decoder.decode([String: [[String: Int64]]].self, from: document)
            case "Int16": _ = try decoder.decode([String: [[String: Int16]]].self, from: document)
            case "UInt32": _ = try decoder.decode([String: [[String: UInt32]]].self, from: document)
            case "UInt128": _ = try decoder.decode([String: [[String: UInt128]]].self, from: document)
            case "Float": _ = try decoder.decode([String: [[String: Float]]].self, from: document)
            default: _ = try decoder.decode([String: [[String: Int]]].self, from: document)
            }
        }
        #expect(error.code == .typeMismatch)
        #expect(error.message == message)
        #expect(error.position == .codingPath("list[1].n"))
    }

    @Test func outOfRangeWideIntegersCannotBeEncoded() throws {
        let error = try #require(throws: PlistError.self) {
            try encoder.encode(["a": [Wide(value: Int128(UInt64.max) + 1)]])
        }
        #expect(error.code == .unrepresentable)
        #expect(error.message.contains("18446744073709551616") && error.message.contains("Int128"))
        #expect(error.position == .codingPath("a[0].value"))
        #expect(throws: PlistError.self) { try encoder.encode(Int128(Int64.min) - 1) }
    }

    @Test func typeMismatchNamesExpectedAndFound() throws {
        let value: PlistValue = [
            "title": 5, "width": 640, "scale": 1.0, "visible": true, "tags": [], "origin": ["x": 1, "y": 2],
        ]
        let error = try #require(throws: PlistError.self) { try decoder.decode(Window.self, from: value) }
        #expect(error.code == .typeMismatch)
        #expect(error.message == "type mismatch: expected string for String, found integer")
        #expect(error.position == .codingPath("title"))
        #expect(error.description == "type mismatch: expected string for String, found integer (at coding path title)")

        let deep: PlistValue = ["a": ["b": [1, 2, "three"]]]
        let deepError = try #require(throws: PlistError.self) {
            try decoder.decode([String: [String: [Int]]].self, from: deep)
        }
        #expect(deepError.message == "type mismatch: expected integer for Int, found string")
        #expect(deepError.position == .codingPath("a.b[2]"))

        let containerError = try #require(throws: PlistError.self) {
            try decoder.decode(Holder<Point>.self, from: ["value": ["x", "y"]])
        }
        #expect(containerError.message == "type mismatch: expected dictionary, found array")
        #expect(containerError.position == .codingPath("value"))

        let arrayError = try #require(throws: PlistError.self) { try decoder.decode([Int].self, from: ["x": 1]) }
        #expect(arrayError.message == "type mismatch: expected array, found dictionary")
        #expect(arrayError.position == .codingPath(""))
        #expect(arrayError.description.hasSuffix("(at top level)"))

        let boolError = try #require(throws: PlistError.self) { try decoder.decode(Bool.self, from: 1) }
        #expect(boolError.message == "type mismatch: expected boolean for Bool, found integer")
        let realError = try #require(throws: PlistError.self) { try decoder.decode(Double.self, from: "1") }
        #expect(realError.message == "type mismatch: expected float for Double, found string")
    }

    @Test func missingKeysAreErrorsUnlessOptional() throws {
        let error = try #require(throws: PlistError.self) {
            try decoder.decode(Holder<Point>.self, from: ["value": ["x": 1]])
        }
        #expect(error.code == .typeMismatch)
        #expect(error.message == "key 'y' not found")
        #expect(error.position == .codingPath("value"))
        #expect(error.description == "key 'y' not found (at coding path value)")

        let window = try decoder.decode(
            Window.self,
            from: [
                "title": "t", "width": 1, "scale": 1, "visible": false, "tags": [], "origin": ["x": 0, "y": 0],
                "note": .null,
            ])
        #expect(window.note == nil, "the binary null marker decodes as nil")
    }

    @Test func nilIsStoredAsDollarNullExceptAtTheTopLevel() throws {
        #expect(try encoder.encode(["a": 1, "b": nil] as [String: Int?]) == ["a": 1, "b": "$null"])

        let topLevel = try #require(throws: PlistError.self) { try encoder.encode(Int?.none) }
        #expect(topLevel.code == .unrepresentable)
        #expect(topLevel.position == .codingPath(""))
        #expect(topLevel.message.contains("nil"))

        let nested = try encoder.encode(Holder(value: [["x": [1, nil, 3]]] as [[String: [Int?]]]))
        #expect(nested == ["value": [["x": [1, "$null", 3]]]])

        #expect(try encoder.encode([1, 2] as [Int?]) == [1, 2])
        #expect(try decoder.decode([Int?].self, from: [1, .null, "$null"]) == [1, nil, nil])
    }

    @Test func decodeNilIsTrueOnlyForMissingOrNull() throws {
        struct Probe: Decodable {
            var results: [Bool]
            private struct Key: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Key.self)
                results = try ["missing", "null", "zero", "empty"].map {
                    try container.decodeNil(forKey: Key(stringValue: $0))
                }
                #expect(container.contains(Key(stringValue: "null")))
                #expect(!container.contains(Key(stringValue: "missing")))
            }
        }
        let probe = try decoder.decode(Probe.self, from: ["null": .null, "zero": 0, "empty": ""])
        #expect(probe.results == [true, true, false, false])
    }

    @Test func unkeyedContainerPastTheEndIsAnError() throws {
        let error = try #require(throws: PlistError.self) { try decoder.decode(Point3.self, from: [1, 2]) }
        #expect(error.code == .typeMismatch)
        #expect(error.message == "no value for Int at index 2: the array has 2 elements")
        #expect(error.position == .codingPath("[2]"))
    }

    private struct Point3: Decodable {
        init(from decoder: any Decoder) throws {
            var list = try decoder.unkeyedContainer()
            for _ in 0..<3 { _ = try list.decode(Int.self) }
        }
    }

    @Test func failedUnkeyedDecodeDoesNotAdvance() throws {
        struct Either: Decodable {
            var values: [String]
            init(from decoder: any Decoder) throws {
                var list = try decoder.unkeyedContainer()
                var values: [String] = []
                while !list.isAtEnd {
                    if let number = try? list.decode(Int.self) {
                        values.append("#\(number)")
                    } else {
                        values.append(try list.decode(String.self))
                    }
                }
                self.values = values
            }
        }
        #expect(try decoder.decode(Either.self, from: [1, "a", 2]).values == ["#1", "a", "#2"])
    }

    @Test func codingPathIsReportedToTheModel() throws {
        struct PathProbe: Codable {
            static let seen = PathLog()
            init() {}
            init(from decoder: any Decoder) throws {
                Self.seen.append(decoder.codingPath.map { $0.intValue.map { "#\($0)" } ?? $0.stringValue })
            }
            func encode(to encoder: any Encoder) throws {
                Self.seen.append(encoder.codingPath.map { $0.intValue.map { "#\($0)" } ?? $0.stringValue })
                var container = encoder.singleValueContainer()
                try container.encode(1)
            }
        }
        let encoded = try encoder.encode(["a": [PathProbe(), PathProbe()]])
        _ = try decoder.decode([String: [PathProbe]].self, from: encoded)
        #expect(PathProbe.seen.entries == [["a", "#0"], ["a", "#1"], ["a", "#0"], ["a", "#1"]])
    }

    @Test func standardCodableErrorsBecomePlistErrors() throws {
        let unknownCase = try #require(throws: PlistError.self) {
            try decoder.decode([String: [Mode]].self, from: ["modes": ["dark", "purple"]])
        }
        #expect(unknownCase.code == .typeMismatch)
        #expect(unknownCase.message.contains("purple"))
        #expect(unknownCase.position == .codingPath("modes[1]"))

        let textKey = try #require(throws: PlistError.self) {
            try decoder.decode(Holder<[Int: String]>.self, from: ["value": ["1": "one", "two": "2"]])
        }
        #expect(textKey.code == .typeMismatch)
        #expect(textKey.position == .codingPath("value.two"))
    }

    @Test func missingSuperValueDecodesAsNull() throws {
        let error = try #require(throws: PlistError.self) { try decoder.decode(Dog.self, from: ["goodBoy": true]) }
        #expect(error.message == "type mismatch: expected dictionary, found null")
        #expect(error.position == .codingPath("super"))
    }

    @Test func unkeyedSuperEncoderAndDecoder() throws {
        struct Pair: Codable, Equatable {
            var first: Point
            var second: Int
            init(first: Point, second: Int) {
                self.first = first
                self.second = second
            }
            func encode(to encoder: any Encoder) throws {
                var list = encoder.unkeyedContainer()
                try first.encode(to: list.superEncoder())
                try list.encode(second)
                var trailing = list.superEncoder().singleValueContainer()
                try trailing.encodeNil()
            }
            init(from decoder: any Decoder) throws {
                var list = try decoder.unkeyedContainer()
                first = try Point(from: list.superDecoder())
                second = try list.decode(Int.self)
            }
        }
        let encoded = try encoder.encode(["pair": Pair(first: Point(x: 1, y: 2), second: 3)])
        #expect(encoded == ["pair": [["x": 1, "y": 2], 3, "$null"]], "the super encoder that encoded nil")
        let decoded = try decoder.decode(Pair.self, from: [["x": 1, "y": 2], 3])
        #expect(decoded == Pair(first: Point(x: 1, y: 2), second: 3))
    }

    @Test func containerMisuseIsAnErrorNotACrash() throws {
        let error = try #require(throws: PlistError.self) { try encoder.encode(MisusesContainers()) }
        #expect(error.code == .unrepresentable)
        #expect(error.message.contains("keyed container"))
    }

    @Test func valuesThatEncodeNothing() throws {
        let error = try #require(throws: PlistError.self) { try encoder.encode(EncodesNothing()) }
        #expect(error.code == .unrepresentable)
        #expect(error.message.contains("EncodesNothing"))
        #expect(try encoder.encode(["x": EncodesNothing()]) == ["x": [:]], "nested, it is an empty dictionary")
    }

    @Test func scalarsAtTheTopLevel() throws {
        #expect(try roundTrip("text") == "text")
        #expect(try roundTrip(true) == true)
        #expect(try roundTrip(Mode.dark) == "dark")
        #expect(try roundTrip([String]()) == [])
        #expect(try roundTrip([String: Int]()) == [:])
    }

    @Test func plistValueHasAGenericCodableForm() throws {
        // Through a coder that knows nothing of plists, the value keeps its nearest Codable shape.
        let value: PlistValue = [
            "s": "x", "i": -5, "big": .integer(PlistInteger(UInt64.max)), "r": 0.5, "b": true,
            "a": [1, "two"], "n": .null,
        ]
        let json = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(PlistValue.self, from: json) == value)
        let date = try JSONEncoder().encode(PlistDate(secondsSinceReferenceDate: 7))
        #expect(String(decoding: date, as: UTF8.self) == "7")
        #expect(try JSONDecoder().decode(PlistDate.self, from: date) == PlistDate(secondsSinceReferenceDate: 7))
        let data = try JSONEncoder().encode(PlistValue.data([1, 2]))
        #expect(try JSONDecoder().decode(PlistValue.self, from: data) == [1, 2])
    }

    @Test func encodedModelsSurviveJSON() throws {
        let window = Window(
            title: "ü ✓", width: -1, scale: 0.25, visible: false, tags: [], origin: Point(x: .max, y: .min),
            note: "line\nbreak")
        let encoded = try encoder.encode(window)
        let json = try JSONPlistWriter.write(encoded, pretty: true)
        let read = try json.withUnsafeBytes { try JSONPlistReader.read($0, limits: .default) }
        #expect(read == encoded)
        #expect(try decoder.decode(Window.self, from: read) == window)
    }
}

/// Collects coding paths from inside `encode(to:)` and `init(from:)`.
private final class PathLog: Sendable {
    private let storage = Mutex<[[String]]>([])

    func append(_ path: [String]) {
        storage.withLock { $0.append(path) }
    }

    var entries: [[String]] { storage.withLock { $0 } }
}
