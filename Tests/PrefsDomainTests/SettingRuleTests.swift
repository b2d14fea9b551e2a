// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPlist
import Testing

@Suite struct SettingRuleTests {
    @Test(
        "each kind of rule accepts what it says and says what it asks",
        arguments: [
            (SettingRule.seconds(0.001...3600), PlistValue.integer(1), true),
            (.seconds(0.001...3600), .real(0.5), true),
            (.seconds(0.001...3600), .real(0), false),
            (.seconds(0.001...3600), .string("1"), false),
            (.seconds(0.001...3600), .real(.infinity), false),
            (.seconds(0.1...86400, zeroMeansNever: true), .integer(0), true),
            (.seconds(0.1...86400, zeroMeansNever: true), .real(0.05), false),
            (.integer(1...65536), .integer(65536), true),
            (.integer(1...65536), .integer(0), false),
            (.integer(1...65536), .real(2), false),
            (.word(["info", "debug"]), .string("DEBUG"), true),
            (.word(["info", "debug"]), .string("loud"), false),
        ])
    func accepts(rule: SettingRule, value: PlistValue, accepted: Bool) {
        #expect(rule.accepts(value) == accepted, "\(rule.requirement): \(value)")
    }

    @Test func requirementsReadAsTheDaemonsWarningsAlwaysHave() {
        #expect(SettingRule.seconds(0.001...3600).requirement == "must be a number of seconds from 0.001 to 3600")
        #expect(
            SettingRule.seconds(0...86400, zeroMeansNever: true).requirement
                == "must be a number of seconds from 0 (never) to 86400")
        #expect(
            SettingRule.seconds(0.1...86400, zeroMeansNever: true).requirement
                == "must be 0 (never) or a number of seconds from 0.1 to 86400")
        #expect(SettingRule.integer(1...200).requirement == "must be an integer from 1 to 200")
    }

    @Test func prefsdsRulesNameTheKeyTheValueAndTheRule() {
        #expect(DomainRules.prefsd.problem(key: "MaxConnections", value: 10) == nil)
        #expect(DomainRules.prefsd.problem(key: "Unruled", value: "anything") == nil)
        #expect(
            DomainRules.prefsd.problem(key: "MaxConnections", value: 0)
                == "setting MaxConnections of domain prefsd cannot be 0 (integer): it must be an integer from 1 to 65536"
        )
    }
}
