// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// The fleet state of a daemon that has joined a fleet (docs/FLEET.md): the result of `fleetStatus`.
///
/// On the wire, inside the reply: `state` (string: `connecting`, `connected` or `offline`), `endpoint` (string,
/// optional: the etcd member watched or last tried), `revision` (integer: the last etcd revision applied, 0 before
/// the first), `latestRevision` (integer, optional: the newest revision etcd reported in a response header or watch
/// event), `lastError` (string, optional) and `lastErrorDate` (date, optional: when it happened), `refusedValues`
/// (integer: values from etcd refused since the daemon started) and `cacheDirectory` (string); with roaming user
/// domains, `roamingUser` (string), `roamingDomains` (array of strings) and `roamingPending` (integer: local changes
/// not yet pushed to etcd).
public struct WireFleetStatus: Sendable, Hashable {
    /// How the daemon stands with etcd.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Joining: no watch established yet since the daemon started.
        case connecting
        /// Watching the managed keys on ``WireFleetStatus/endpoint``.
        case connected
        /// The last connection failed; the cached policy is served while the daemon tries again.
        case offline
    }

    /// How the daemon stands with etcd.
    public var state: State
    /// The etcd client URL watched (``State/connected``) or last tried, when known.
    public var endpoint: String?
    /// The last etcd revision written to the cache (0: none yet).
    public var appliedRevision: Int64
    /// The newest etcd revision the daemon has heard of, when it has heard of one.
    public var latestRevision: Int64?
    /// The last failure talking to etcd, one sentence.
    public var lastError: String?
    /// When ``lastError`` happened.
    public var lastErrorDate: PlistDate?
    /// How many values from etcd were refused (not a property list, too large, misnamed…) since the daemon started.
    public var refusedValues: UInt64
    /// The fleet cache directory.
    public var cacheDirectory: String
    /// The name the user's roaming domains are kept under in etcd, when any domain roams.
    public var roamingUser: String?
    /// The user domains that roam (empty: none).
    public var roamingDomains: [String] = []
    /// How many local changes of roaming domains wait to be pushed to etcd.
    public var roamingPending: UInt64 = 0
    /// The machine id the daemon joined the fleet as.
    public var machineID: String?
    /// The name the host registers under.
    public var hostName: String?
    /// The host's groups, the first winning.
    public var groups: [String] = []
    /// The newest managed change the daemon knows of (its own or another host's), when it knows of one.
    public var policyRevision: Int64?
    /// The host's key in the fleet's registry while it is registered there (`<prefix>hosts/<machine-id>`).
    public var hostKey: String?
    /// The time to live of the host's lease in the registry, in seconds, while it is registered.
    public var hostLeaseSeconds: Int64?
    /// Why the host is not registered, when the last attempt failed.
    public var registrationError: String?

    /// Creates a fleet status.
    /// - Parameters:
    ///   - state: How the daemon stands with etcd.
    ///   - endpoint: The etcd client URL watched or last tried.
    ///   - appliedRevision: The last revision written to the cache.
    ///   - latestRevision: The newest revision heard of.
    ///   - lastError: The last failure talking to etcd.
    ///   - lastErrorDate: When it happened.
    ///   - refusedValues: How many values from etcd were refused.
    ///   - cacheDirectory: The fleet cache directory.
    public init(
        state: State, endpoint: String? = nil, appliedRevision: Int64 = 0, latestRevision: Int64? = nil,
        lastError: String? = nil, lastErrorDate: PlistDate? = nil, refusedValues: UInt64 = 0, cacheDirectory: String
    ) {
        self.state = state
        self.endpoint = endpoint
        self.appliedRevision = appliedRevision
        self.latestRevision = latestRevision
        self.lastError = lastError
        self.lastErrorDate = lastErrorDate
        self.refusedValues = refusedValues
        self.cacheDirectory = cacheDirectory
    }

    /// How many revisions etcd is ahead of the cache (``latestRevision`` minus ``appliedRevision``, never negative),
    /// or `nil` when no newer revision was reported. Not every revision concerns this host: a lag may last until the
    /// next event or progress report moves the applied revision on.
    public var lag: Int64? {
        latestRevision.map { max(0, $0 - appliedRevision) }
    }

    func encode(into dictionary: inout PlistDictionary) {
        dictionary["state"] = .string(state.rawValue)
        dictionary.setIfPresent("endpoint", endpoint.map(PlistValue.string))
        dictionary["revision"] = .signed(appliedRevision)
        dictionary.setIfPresent("latestRevision", latestRevision.map(PlistValue.signed))
        dictionary.setIfPresent("lastError", lastError.map(PlistValue.string))
        dictionary.setIfPresent("lastErrorDate", lastErrorDate.map(PlistValue.date))
        dictionary["refusedValues"] = .unsigned(refusedValues)
        dictionary["cacheDirectory"] = .string(cacheDirectory)
        if let roamingUser {
            dictionary["roamingUser"] = .string(roamingUser)
            dictionary["roamingDomains"] = .strings(roamingDomains)
            dictionary["roamingPending"] = .unsigned(roamingPending)
        }
        dictionary.setIfPresent("machineID", machineID.map(PlistValue.string))
        dictionary.setIfPresent("hostName", hostName.map(PlistValue.string))
        if !groups.isEmpty { dictionary["groups"] = .strings(groups) }
        dictionary.setIfPresent("policyRevision", policyRevision.map(PlistValue.signed))
        dictionary.setIfPresent("hostKey", hostKey.map(PlistValue.string))
        dictionary.setIfPresent("hostLeaseSeconds", hostLeaseSeconds.map(PlistValue.signed))
        dictionary.setIfPresent("registrationError", registrationError.map(PlistValue.string))
    }

    static func decode(from fields: inout WireFields) throws(WireError) -> WireFleetStatus {
        let stateName = try fields.string("state")
        guard let state = State(rawValue: stateName) else {
            throw WireError.badField(
                fields.path(of: "state"), "must be connecting, connected or offline (got \"\(stateName)\")")
        }
        let revisions: ClosedRange<Int64> = 0...Int64.max
        guard let applied = try fields.optionalInt64("revision", in: revisions) else {
            throw WireError.badField(fields.path(of: "revision"), "is missing")
        }
        var status = WireFleetStatus(
            state: state, endpoint: try fields.optionalString("endpoint"), appliedRevision: applied,
            latestRevision: try fields.optionalInt64("latestRevision", in: revisions),
            lastError: try fields.optionalString("lastError"), lastErrorDate: try fields.optionalDate("lastErrorDate"),
            refusedValues: try fields.uint64("refusedValues"), cacheDirectory: try fields.string("cacheDirectory"))
        status.roamingUser = try fields.optionalString("roamingUser")
        status.roamingDomains = try fields.optionalStringArray("roamingDomains") ?? []
        status.roamingPending = try fields.optionalUInt64("roamingPending") ?? 0
        status.machineID = try fields.optionalString("machineID")
        status.hostName = try fields.optionalString("hostName")
        status.groups = try fields.optionalStringArray("groups") ?? []
        status.policyRevision = try fields.optionalInt64("policyRevision", in: revisions)
        status.hostKey = try fields.optionalString("hostKey")
        status.hostLeaseSeconds = try fields.optionalInt64("hostLeaseSeconds", in: 1...Int64.max)
        status.registrationError = try fields.optionalString("registrationError")
        return status
    }
}
