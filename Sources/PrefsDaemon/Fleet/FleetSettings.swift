// SPDX-License-Identifier: Apache-2.0
package import PrefsDomain
package import PrefsFleet
import PrefsPOSIX
package import PrefsPlist
import PrefsStore

/// The fleet part of prefsd's settings (docs/FLEET.md): present only when `FleetEndpoints` names at least one
/// endpoint, and then prefsd mirrors the managed domains from etcd.
///
/// | key | type | default | |
/// |---|---|---|---|
/// | `FleetEndpoints` | array of strings (or one string, comma-separated) | none | etcd client URLs, `http[s]://host:port`. |
/// | `FleetPrefix` | string | `/preferences/` | The key prefix of the fleet's data in etcd. |
/// | `FleetGroups` | array of strings | none | The groups this host belongs to; the first listed wins. |
/// | `FleetMaxValueBytes` | integer, 1024–16777216 | 1048576 | The largest managed domain accepted from etcd. |
/// | `FleetUser` | string | none | The etcd user prefsd authenticates as. |
/// | `FleetPasswordFile` | string | none | The file holding that user's password, readable by its owner only. |
/// | `FleetRoamingDomains` | array of strings | none | The user's domains that roam between the user's hosts. |
/// | `FleetRoamingUser` | string | the login name | The name the roaming domains are kept under in etcd. |
/// | `FleetCAFile` | string | the system's CAs | For `https://`: the CA certificates (PEM) that sign the members'. |
/// | `FleetCRLFile` | string | none | For `https://`: revocation lists (PEM) the members' certificates are checked against. |
/// | `FleetCertificateFile` | string | none | For `https://`: this host's client certificate (PEM). |
/// | `FleetKeyFile` | string | none | Its private key (PEM), readable by its owner only; with `FleetCertificateFile`. |
/// | `FleetHostTTL` | integer, 5–3600 | 30 | Seconds a host stays in the registry after its prefsd last renewed its lease. |
/// | `FleetHostName` | string | the host name | The name the host registers under. |
/// | `FleetWatchCheckSeconds` | integer, 1–3600 | 10 | How often the member serving the watch is asked whether it is alive. |
package struct FleetSettings: Sendable, Equatable {
    /// The cluster's client URLs.
    package var endpoints: [EtcdEndpoint]
    /// The key layout under the prefix.
    package var layout: FleetKeyLayout
    /// The groups this host belongs to.
    package var groups: [String]
    /// The largest managed domain accepted.
    package var maxValueBytes: Int
    /// The etcd user and password, or `nil` for a cluster without authentication.
    package var credentials: EtcdCredentials?
    /// The user domains that roam (docs/FLEET.md, "Roaming user domains").
    package var roamingDomains: [DomainName] = []
    /// The name the roaming domains are kept under: `<prefix>users/<roamingUser>/`.
    package var roamingUser: String = ""
    /// For `https://` endpoints, the CAs and the client certificate, read; `nil` for `http://` ones.
    package var tls: EtcdTLSContext?
    /// The time to live of the host's registry lease, in seconds.
    package var hostTTL: Int64 = 30
    /// The name the host registers under.
    package var hostName: String = POSIX.hostName() ?? "localhost"
    /// How often the member serving the watch is asked whether it is alive and has a leader.
    package var watchCheckInterval: Duration = .seconds(10)

    /// A client of the cluster with these endpoints, credentials and TLS files: every service of the fleet connects
    /// through one made here, so that none of them leaves out a part of the settings.
    /// - Parameter requestTimeout: How long a unary request may take.
    package func client(requestTimeout: Duration = .seconds(5)) -> EtcdClient {
        EtcdClient(endpoints: endpoints, credentials: credentials, tls: tls, requestTimeout: requestTimeout)
    }

    /// Reads the fleet settings from the `prefsd` domain's values.
    /// - Parameters:
    ///   - values: The effective values.
    ///   - warn: Receives one sentence per setting ignored, naming the key and why.
    ///   - refuse: Receives the sentence saying why the fleet is not joined although it is configured: the
    ///     credentials cannot be used (a password file missing, or open to others), nor the TLS files.
    /// - Returns: The settings, or `nil` when no endpoint is configured (or none is valid), or the credentials
    ///   cannot be used: no fleet.
    package static func read(
        _ values: PlistDictionary, warn: (String) -> Void, refuse: (String) -> Void
    ) -> FleetSettings? {
        guard let endpointsValue = values["FleetEndpoints"] else { return nil }
        var texts: [String] = []
        switch endpointsValue {
        case .string(let text): texts = text.split(separator: ",").map { String($0).trimmingSpaces }
        case .array(let items):
            for item in items {
                guard case .string(let text) = item else {
                    warn("setting FleetEndpoints of domain prefsd: every element must be a string; ignored")
                    return nil
                }
                texts.append(text.trimmingSpaces)
            }
        default:
            warn("setting FleetEndpoints of domain prefsd must be an array of strings; no fleet is joined")
            return nil
        }
        var endpoints: [EtcdEndpoint] = []
        for text in texts where !text.isEmpty {
            do {
                endpoints.append(try EtcdEndpoint(text))
            } catch {
                warn("setting FleetEndpoints of domain prefsd: \(error.message); that endpoint is ignored")
            }
        }
        guard !endpoints.isEmpty else {
            warn("setting FleetEndpoints of domain prefsd names no valid endpoint; no fleet is joined")
            return nil
        }
        var layout = try! FleetKeyLayout()  // The default prefix is valid.
        if let value = values["FleetPrefix"] {
            if case .string(let text) = value, let parsed = try? FleetKeyLayout(prefix: text) {
                layout = parsed
            } else {
                warn("setting FleetPrefix of domain prefsd must be a string starting with /; using /preferences/")
            }
        }
        var groups: [String] = []
        if let value = values["FleetGroups"] {
            let items: [PlistValue]
            if case .array(let array) = value { items = array } else { items = [value] }
            for item in items {
                if case .string(let name) = item, FleetTarget.isValidGroupName(name) {
                    if !groups.contains(name) { groups.append(name) }
                } else {
                    warn(
                        "setting FleetGroups of domain prefsd: \(item.defaultsDescription) is not a group name "
                            + "(1-128 bytes of A-Z a-z 0-9 . _ -, not starting with .); ignored")
                }
            }
        }
        var maxValueBytes = 1 << 20
        if let value = values["FleetMaxValueBytes"] {
            if case .integer(let integer) = value, let number = integer.int64Value, (1024...(16 << 20)).contains(number)
            {
                maxValueBytes = Int(number)
            } else {
                warn(
                    "setting FleetMaxValueBytes of domain prefsd must be an integer from 1024 to 16777216; using 1048576"
                )
            }
        }
        var credentials: EtcdCredentials?
        switch (values["FleetUser"], values["FleetPasswordFile"]) {
        case (nil, nil):
            break
        case (.string(let user)?, .string(let path)?) where !user.isEmpty:
            do {
                credentials = EtcdCredentials(user: user, password: try EtcdCredentials.readPassword(fromFile: path))
            } catch {
                refuse("setting FleetPasswordFile of domain prefsd: \(error.message); no fleet is joined")
                return nil
            }
        case (.string(let user)?, nil) where !user.isEmpty:
            refuse(
                "setting FleetUser of domain prefsd needs FleetPasswordFile, the file of its password; no fleet is "
                    + "joined")
            return nil
        default:
            refuse(
                "settings FleetUser and FleetPasswordFile of domain prefsd must be a user name and a file path, given "
                    + "together; no fleet is joined")
            return nil
        }
        // TLS files, read now: one that cannot be used refuses the fleet, as a password file does.
        var files = EtcdTLSConfiguration()
        let fileKeys: [(String, WritableKeyPath<EtcdTLSConfiguration, String?>)] = [
            ("FleetCAFile", \.caFile), ("FleetCRLFile", \.crlFile), ("FleetCertificateFile", \.certificateFile),
            ("FleetKeyFile", \.keyFile),
        ]
        for (key, file) in fileKeys where values[key] != nil {
            guard case .string(let path)? = values[key], !path.isEmpty else {
                refuse("setting \(key) of domain prefsd must be a file path; no fleet is joined")
                return nil
            }
            files[keyPath: file] = path
        }
        guard (files.certificateFile == nil) == (files.keyFile == nil) else {
            refuse("settings FleetCertificateFile and FleetKeyFile of domain prefsd go together; no fleet is joined")
            return nil
        }
        let tls: EtcdTLSContext?
        do {
            tls = try EtcdTLSContext.forEndpoints(endpoints, configuration: files)
        } catch {
            refuse("fleet TLS settings of domain prefsd: \(error.message); no fleet is joined")
            return nil
        }
        var settings = FleetSettings(
            endpoints: endpoints, layout: layout, groups: groups, maxValueBytes: maxValueBytes,
            credentials: credentials, tls: tls)
        settings.readRoaming(values, warn: warn)
        settings.readHost(values, warn: warn)
        return settings
    }

    /// Reads `FleetHostTTL`, `FleetHostName` and `FleetWatchCheckSeconds`; a malformed one is ignored with a warning.
    private mutating func readHost(_ values: PlistDictionary, warn: (String) -> Void) {
        func seconds(_ key: String, in range: ClosedRange<Int64>, default fallback: Int64) -> Int64 {
            guard let value = values[key] else { return fallback }
            if case .integer(let integer) = value, let number = integer.int64Value, range.contains(number) {
                return number
            }
            warn(
                "setting \(key) of domain prefsd must be an integer from \(range.lowerBound) to \(range.upperBound); "
                    + "using \(fallback)")
            return fallback
        }
        hostTTL = seconds("FleetHostTTL", in: 5...3600, default: 30)
        watchCheckInterval = .seconds(seconds("FleetWatchCheckSeconds", in: 1...3600, default: 10))
        if let value = values["FleetHostName"] {
            if case .string(let name) = value, !name.isEmpty, name.utf8.count <= 255,
                !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f })
            {
                hostName = name
            } else {
                warn(
                    "setting FleetHostName of domain prefsd must be a name of 1-255 bytes without control characters; "
                        + "using \(hostName)")
            }
        }
    }

    /// Reads `FleetRoamingDomains` and `FleetRoamingUser`; a malformed one is ignored with a warning, and roaming is
    /// then off rather than kept under a name the user did not mean.
    private mutating func readRoaming(_ values: PlistDictionary, warn: (String) -> Void) {
        guard let value = values["FleetRoamingDomains"] else { return }
        var domains: [DomainName] = []
        for item in value.arrayValue ?? [value] {
            if case .string(let text) = item, let name = try? DomainName(text) {
                if !domains.contains(name) { domains.append(name) }
            } else {
                warn(
                    "setting FleetRoamingDomains of domain prefsd: \(item.defaultsDescription) is not a domain name; "
                        + "ignored")
            }
        }
        var user = POSIX.userNameOfCurrentUser() ?? ""
        if let value = values["FleetRoamingUser"] {
            guard case .string(let name) = value, FleetTarget.isValidGroupName(name) else {
                warn(
                    "setting FleetRoamingUser of domain prefsd must be a name of 1-128 bytes of A-Z a-z 0-9 . _ - "
                        + "(not starting with .); no domain roams")
                return
            }
            user = name
        }
        guard FleetTarget.isValidGroupName(user) else {
            if !domains.isEmpty {
                warn(
                    "the login name \"\(user)\" cannot name roaming domains in etcd: set FleetRoamingUser of domain "
                        + "prefsd; no domain roams")
            }
            return
        }
        roamingDomains = domains
        roamingUser = user
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
