// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPlist
import Testing

@Suite struct KeySchemaTests {
    @Test(
        "each kind of rule accepts what it says and says what it asks",
        arguments: [
            (KeySchema.seconds(0.001...3600), PlistValue.integer(1), true),
            (.seconds(0.001...3600), .real(0.5), true),
            (.seconds(0.001...3600), .real(0), false),
            (.seconds(0.001...3600), .string("1"), false),
            (.seconds(0.001...3600), .real(.infinity), false),
            (.seconds(0.1...86400, zeroMeansNever: true), .integer(0), true),
            (.seconds(0.1...86400, zeroMeansNever: true), .real(0), true),
            (.seconds(0.1...86400, zeroMeansNever: true), .real(0.05), false),
            (.integer(1...65536), .integer(65536), true),
            (.integer(1...65536), .integer(0), false),
            (.integer(1...65536), .real(2), false),
            (.word(["info", "debug"]), .string("DEBUG"), true),
            (.word(["info", "debug"]), .string("loud"), false),
            (KeySchema(.string, choices: ["Celsius", "Fahrenheit"]), .string("celsius"), false),
            (KeySchema(.real, minimum: 0, maximum: 1), .integer(1), true),
            (KeySchema(.real, minimum: 0, maximum: 1), .real(1.5), false),
            (KeySchema(.boolean), .bool(false), true),
            (KeySchema(.boolean), .integer(0), false),
            (KeySchema(.array), .array([]), true),
            (KeySchema(.dictionary), .array([]), false),
            (KeySchema(.integer, minimum: 10), .integer(9), false),
        ])
    func accepts(rule: KeySchema, value: PlistValue, accepted: Bool) {
        #expect(rule.accepts(value) == accepted, "\(rule.requirement): \(value)")
    }

    @Test func requirementsReadAsTheDaemonsWarningsAlwaysHave() {
        #expect(KeySchema.seconds(0.001...3600).requirement == "must be a number of seconds from 0.001 to 3600")
        #expect(
            KeySchema.seconds(0...86400, zeroMeansNever: true).requirement
                == "must be a number of seconds from 0 to 86400")
        #expect(
            KeySchema.seconds(0.1...86400, zeroMeansNever: true).requirement
                == "must be 0 or a number of seconds from 0.1 to 86400")
        #expect(KeySchema.integer(1...200).requirement == "must be an integer from 1 to 200")
        #expect(KeySchema(.integer, minimum: 1).requirement == "must be an integer of at least 1")
        #expect(KeySchema(.boolean).requirement == "must be a boolean")
        #expect(KeySchema.word(["info", "debug"]).requirement == "must be one of info, debug")
    }

    @Test func prefsdsRulesNameTheKeyTheValueAndTheRule() {
        #expect(DomainSchema.prefsd.problem(key: "MaxConnections", value: 10) == nil)
        #expect(DomainSchema.prefsd.problem(key: "Unruled", value: "anything") == nil)
        #expect(
            DomainSchema.prefsd.problem(key: "MaxConnections", value: 0)
                == "MaxConnections of domain prefsd cannot be 0 (integer): it must be an integer from 1 to 65536")
        #expect(
            DomainSchema.prefsd.problem(key: "MaxConnections", value: "many")
                == "MaxConnections of domain prefsd cannot be many (string): it must be an integer from 1 to 65536")
    }
}
