// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

/// The rules of one domain's keys, in one table: the store refuses a write that breaks one (on the files and through
/// prefsd alike), and the program that reads the domain parses its settings with the same table, so that what a
/// write accepts is what the program uses.
///
/// Only prefsd's own settings have rules today (``prefsd``); domain schemas are their general form.
package struct DomainRules: Sendable {
    /// The domain the rules are for.
    package let domain: DomainName
    /// Each ruled key's rule; other keys may hold anything.
    package let rules: [String: SettingRule]

    package init(domain: DomainName, rules: [String: SettingRule]) {
        self.domain = domain
        self.rules = rules
    }

    /// Why `value` may not be stored under `key`, as a sentence naming the key, the value and the rule; `nil` when
    /// it may (or the key has no rule).
    package func problem(key: String, value: PlistValue) -> String? {
        guard let rule = rules[key], !rule.accepts(value) else { return nil }
        return "setting \(key) of domain \(domain) cannot be \(value.defaultsDescription) (\(value.typeName)): it "
            + rule.requirement
    }

    /// prefsd's settings (docs/DAEMON.md, "Settings").
    ///
    /// `MaxDepth` stops at 200 because every layer walks values to their depth (the encoders, the store's size and
    /// difference computations, freeing a value) and the files must read back: the property-list readers refuse
    /// documents nested deeper than 250 levels (libxml2's own limit is 256). Frames stop at 256 MiB, the readers'
    /// input limit, and objects at 16 Mi, theirs too.
    package static let prefsd = DomainRules(
        domain: DomainName(unchecked: "prefsd"),
        rules: [
            "FlushDelay": .seconds(0.001...3600),
            "IdleExitSeconds": .seconds(0...86400, zeroMeansNever: true),
            "IdleTimeoutSeconds": .seconds(0.1...86400, zeroMeansNever: true),
            "FrameTimeoutSeconds": .seconds(0.1...3600),
            "LogLevel": .word(["trace", "debug", "info", "notice", "warning", "error", "critical"]),
            "MaxFrameBytes": .integer(4096...(256 << 20)),
            "MaxFrameObjects": .integer(16...(16 << 20)),
            "MaxDepth": .integer(1...200),
            "MaxDomainBytes": .integer(1024...(128 << 20)),
            "MaxKeyBytes": .integer(1...65536),
            "MaxConnections": .integer(1...65536),
            "MaxSubscriptions": .integer(1...65536),
            "SubscriptionQueueLength": .integer(1...(1 << 20)),
            "MaxSuites": .integer(1...1024),
            "MaxBufferedFrameBytes": .integer(4096...(1 << 30)),
        ])
}
