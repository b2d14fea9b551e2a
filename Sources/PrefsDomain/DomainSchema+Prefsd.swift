// SPDX-License-Identifier: Apache-2.0
extension DomainSchema {
    /// The name of prefsd's settings domain, without building its schema.
    package static let prefsdName = DomainName(unchecked: "prefsd")

    /// prefsd's settings (docs/DAEMON.md, "Settings"): the rules compiled into every program of the package, so that
    /// the store refuses a bad setting and the daemon parses its settings with them even when no schema file is
    /// installed. `Domains/Schemas/prefsd.schema.plist` holds the same rules with the defaults and the texts; a test
    /// holds the two together.
    ///
    /// `MaxDepth` stops at 200 because every layer walks values to their depth (the encoders, the store's size and
    /// difference computations, freeing a value) and the files must read back: the property-list readers refuse
    /// documents nested deeper than 250 levels (libxml2's own limit is 256). Frames stop at 256 MiB, the readers'
    /// input limit, and objects at 16 Mi, theirs too.
    package static let prefsd = DomainSchema(
        domain: prefsdName,
        keys: [
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
