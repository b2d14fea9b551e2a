// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import PrefsPlist

// Where PlistEncoder and PlistDecoder must behave as Foundation's PropertyListEncoder and PropertyListDecoder do,
// checked against the Foundation of this machine wherever Foundation answers (it traps on container misuse).

// MARK: - Models

private class Person: Codable {
    var name: String

    init(name: String) {
        self.name = name
    }
}

private final class Employee: Person {
    var salary: Int

    private enum CodingKeys: String, CodingKey {
        case salary
    }

    init(name: String, salary: Int) {
        self.salary = salary
        super.init(name: name)
    }

    required init(from decoder: any Decoder) throws {
        salary = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .salary)
        try super.init(from: decoder)
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(salary, forKey: .salary)
        try super.encode(to: encoder)
    }
}

/// Decodes its members through the metatype it is given at run time, in each kind of container.
private struct Staff: Decodable {
    static let memberType: Person.Type = Employee.self
    var boss: Person
    var deputy: Person?
    var team: [Person]

    private enum CodingKeys: String, CodingKey {
        case boss, deputy, team
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        boss = try container.decode(Self.memberType, forKey: .boss)
        deputy = try container.decodeIfPresent(Self.memberType, forKey: .deputy)
        var list = try container.nestedUnkeyedContainer(forKey: .team)
        team = []
        while !list.isAtEnd { team.append(try list.decode(Self.memberType)) }
    }
}

private struct Window: Codable, Equatable {
    var title: String?
    var sizes: [Int?]
    var labels: [String: String?]
}

/// Asks for containers under one key `x` in the order given; each step writes one value (internal: a test argument).
struct ContainerRequests: Encodable {
    enum Request {
        case keyed, unkeyed, superEncoder, value
    }

    var requests: [Request]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        let x = Key(stringValue: "x")
        for (step, request) in requests.enumerated() {
            switch request {
            case .keyed:
                var nested = container.nestedContainer(keyedBy: Key.self, forKey: x)
                try nested.encode(step, forKey: Key(stringValue: "k\(step)"))
            case .unkeyed:
                var nested = container.nestedUnkeyedContainer(forKey: x)
                try nested.encode(step)
            case .superEncoder:
                var single = container.superEncoder(forKey: x).singleValueContainer()
                try single.encode(step)
            case .value:
                try container.encode(["v\(step)": step], forKey: x)
            }
        }
    }
}

/// Encodes a dictionary as a single value, then asks for a keyed container to add to it.
private struct SingleThenKeyed: Encodable {
    private enum CodingKeys: String, CodingKey {
        case added
    }

    func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        try single.encode(["first": 1])
        var keyed = encoder.container(keyedBy: CodingKeys.self)
        try keyed.encode(2, forKey: .added)
    }
}

private enum Mode: String, Codable {
    case light, dark
}

private struct ExplicitNils: Encodable {
    private enum CodingKeys: String, CodingKey {
        case keyed, list
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeNil(forKey: .keyed)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        try list.encodeNil()
        try list.encode(1)
    }
}

// MARK: - Tests

@Suite struct PlistCodableFoundationTests {
    private let encoder = PlistEncoder()
    private let decoder = PlistDecoder()

    private func foundationXML<T: Encodable>(_ value: T) throws -> PlistValue {
        let foundation = PropertyListEncoder()
        foundation.outputFormat = .xml
        return try PlistSerialization.decode(Array(try foundation.encode(value)))
    }

    private func foundationDecode<T: Decodable>(_ type: T.Type, from value: PlistValue) throws -> T {
        try PropertyListDecoder().decode(type, from: Data(try PlistSerialization.encode(value, format: .xml)))
    }

    // MARK: Container misuse

    @Test(
        arguments: [
            ([.keyed, .unkeyed], "an unkeyed container was requested where a keyed container was already encoded"),
            ([.unkeyed, .keyed], "a keyed container was requested where an unkeyed container was already encoded"),
            ([.keyed, .superEncoder], "a super encoder was requested where a keyed container was already encoded"),
            (
                [.superEncoder, .unkeyed],
                "an unkeyed container was requested where a super encoder was already encoded"
            ),
            ([.value, .unkeyed], "an unkeyed container was requested where a dictionary value was already encoded"),
        ] as [([ContainerRequests.Request], String)])
    func conflictingContainersUnderOneKeyAreAnError(requests: [ContainerRequests.Request], message: String) throws {
        let error = try #require(throws: PlistError.self) {
            try encoder.encode(["outer": ContainerRequests(requests: requests)])
        }
        #expect(error.code == .unrepresentable)
        #expect(error.message == "conflicting use of key 'x': " + message)
        #expect(error.position == .codingPath("outer.x"))
    }

    @Test func containersOfOneKindUnderOneKeyMerge() throws {
        let keyedTwice = ContainerRequests(requests: [.keyed, .keyed])
        #expect(try encoder.encode(keyedTwice) == ["x": ["k0": 0, "k1": 1]])
        #expect(try foundationXML(keyedTwice) == ["x": ["k0": 0, "k1": 1]])

        let valueThenKeyed = ContainerRequests(requests: [.value, .keyed])
        #expect(try encoder.encode(valueThenKeyed) == ["x": ["v0": 0, "k1": 1]])
        #expect(try foundationXML(valueThenKeyed) == ["x": ["v0": 0, "k1": 1]])

        let unkeyedTwice = ContainerRequests(requests: [.unkeyed, .unkeyed])
        #expect(try encoder.encode(unkeyedTwice) == ["x": [0, 1]])
        #expect(try foundationXML(unkeyedTwice) == ["x": [0, 1]])

        #expect(try encoder.encode(SingleThenKeyed()) == ["first": 1, "added": 2])
        #expect(try foundationXML(SingleThenKeyed()) == ["first": 1, "added": 2])

        let keyedThenValue = ContainerRequests(requests: [.keyed, .value])
        #expect(try encoder.encode(keyedThenValue) == ["x": ["v1": 1]], "a value replaces what the key held")
        #expect(try foundationXML(keyedThenValue) == ["x": ["v1": 1]])
    }

    // MARK: Dynamic types

    @Test func aSubclassPassedAsItsSuperclassIsBuiltAsTheSubclass() throws {
        let encoded = try encoder.encode(Employee(name: "Ann", salary: 3))
        #expect(encoded == ["name": "Ann", "salary": 3])

        let type: Person.Type = Employee.self
        let person = try decoder.decode(type, from: encoded)
        let employee = try #require(person as? Employee)
        #expect(employee.salary == 3 && employee.name == "Ann")
        let foundation = try #require(try foundationDecode(type, from: encoded) as? Employee)
        #expect(foundation.salary == 3)

        let stored: PlistValue = ["boss": encoded, "deputy": ["name": "Bo", "salary": 2], "team": [encoded]]
        let staff = try decoder.decode(Staff.self, from: stored)
        #expect((staff.team.first as? Employee)?.salary == 3, "an unkeyed container gets the metatype itself")
        // `KeyedDecodingContainer` hands its box the static type (`T.self`), so a keyed container never sees the
        // subclass, in Foundation's decoder either.
        let foundationStaff = try foundationDecode(Staff.self, from: stored)
        let classes = { (staff: Staff) -> [String] in
            let members: [Person?] = [staff.boss, staff.deputy, staff.team.first]
            return members.map { member in member.map { String(describing: Swift.type(of: $0)) } ?? "nil" }
        }
        #expect(classes(staff) == classes(foundationStaff))
        #expect(classes(staff) == ["Person", "Person", "Employee"])
    }

    // MARK: nil as $null

    @Test func encodedNilIsTheStringDollarNullAsFoundationWritesIt() throws {
        let window = Window(title: nil, sizes: [1, nil, 3], labels: ["a": nil, "b": "x"])
        let expected: PlistValue = ["sizes": [1, "$null", 3], "labels": ["a": "$null", "b": "x"]]
        #expect(try encoder.encode(window) == expected)
        #expect(try foundationXML(window) == expected)

        #expect(try encoder.encode(ExplicitNils()) == ["keyed": "$null", "list": ["$null", 1]])
        #expect(try foundationXML(ExplicitNils()) == ["keyed": "$null", "list": ["$null", 1]])

        let topLevel = try #require(throws: PlistError.self) { try encoder.encode(Int?.none) }
        #expect(topLevel.message == "nil cannot be stored at the top level: property lists have no null")
        #expect(throws: EncodingError.self) { try PropertyListEncoder().encode(Int?.none) }
    }

    @Test func dollarNullDecodesAsNilWhereFoundationReadsNil() throws {
        let stored: PlistValue = ["title": "$null", "sizes": [1, "$null"], "labels": ["a": "$null"]]
        let expected = Window(title: nil, sizes: [1, nil], labels: ["a": nil])
        #expect(try decoder.decode(Window.self, from: stored) == expected)
        #expect(try foundationDecode(Window.self, from: stored) == expected)

        #expect(try decoder.decode(Int?.self, from: "$null") == nil)
        #expect(try foundationDecode([Int?].self, from: ["$null"]) == [nil])
        #expect(try decoder.decode([String?].self, from: ["$null", "x"]) == [nil, "x"])
        #expect(try decoder.decode([String].self, from: ["$null"]) == ["$null"], "a String that is not optional")
    }

    @Test func valuesWithNilsCrossFoundationBothWays() throws {
        let window = Window(title: "t", sizes: [nil, 2], labels: ["n": nil, "s": "$"])
        for format in [PlistFormat.xml, .binary] {
            let ours = try PlistSerialization.encode(try encoder.encode(window), format: format)
            #expect(try PropertyListDecoder().decode(Window.self, from: Data(ours)) == window)
        }
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            let foundation = PropertyListEncoder()
            foundation.outputFormat = format
            let bytes = Array(try foundation.encode(window))
            #expect(try decoder.decode(Window.self, from: PlistSerialization.decode(bytes)) == window)
        }
    }

    // MARK: Top-level fragments

    @Test func topLevelFragmentsAreRefusedAsFoundationRefusesThem() throws {
        let fragments: [(value: any Encodable, kind: String)] = [
            (true, "boolean"), (5, "number"), (2.5, "number"), (UInt8(7), "number"), ("s", "string"),
            (Mode.dark, "string"), (PlistDate(secondsSinceReferenceDate: 0), "date"),
        ]
        for (value, kind) in fragments {
            let error = try #require(throws: PlistError.self) { try encoder.encode(value) }
            #expect(error.code == .unrepresentable)
            #expect(error.message.contains("encoded as a \(kind) property list fragment"), "\(value)")
            #expect(error.position == .codingPath(""))
            #expect(throws: EncodingError.self, "Foundation refuses \(value) too") {
                try PropertyListEncoder().encode(value)
            }
        }
        let containers: [any Encodable] = [[1], ["a": 1], Data([1, 2]), [String](), Employee(name: "n", salary: 1)]
        for value in containers {
            #expect(throws: Never.self) { try encoder.encode(value) }
            #expect(throws: Never.self) { try PropertyListEncoder().encode(value) }
        }
    }

    @Test func fragmentsAreStoredWhenAllowedAndAlwaysDecoded() throws {
        var allowing = PlistEncoder()
        allowing.allowsFragments = true
        #expect(try allowing.encode(5) == 5)
        #expect(try allowing.encode(Mode.dark) == "dark")
        #expect(try allowing.encode(true) == true)
        #expect(throws: PlistError.self, "nil stays an error") { try allowing.encode(Int?.none) }

        #expect(try decoder.decode(Int.self, from: 5) == 5)
        #expect(try decoder.decode(Mode.self, from: "dark") == .dark)
        #expect(try foundationDecode(Int.self, from: 5) == 5, "Foundation's decoder reads fragments too")
        #expect(try foundationDecode(Mode.self, from: "dark") == .dark)
    }
}
