// SPDX-License-Identifier: Apache-2.0
import PrefsCommandLine
package import PrefsDomain
package import PrefsPlist
import PrefsStore

/// `defaults fleet write|read|delete|list`: the administrator's edits of managed domains, straight to etcd
/// (docs/FLEET.md, "Administration"); `defaults fleet hosts|wait`: the fleet's live hosts and how far each is, from
/// etcd's registry; `defaults fleet status`: this host's fleet state, from its prefsd.
package struct FleetCommand: Sendable, Hashable {
    /// What to do.
    package enum Action: Sendable, Hashable {
        /// Sets keys of a managed domain.
        case write(DomainName, [KeyAssignment])
        /// Prints a managed domain, or one key of it.
        case read(DomainName, key: PlistKeyPath?)
        /// Removes a key of a managed domain, or the whole domain.
        case delete(DomainName, key: PlistKeyPath?)
        /// Lists the managed domains (of one target and kind when given).
        case list
        /// Prints the fleet state of the local prefsd.
        case status
        /// Prints every live host (of a group, or one host, when given) and how far each is behind.
        case hosts
        /// Waits until every live host (of a group, or one host, when given) has applied a revision.
        case wait(revision: Int64)
    }

    /// How `fleet hosts` prints the hosts.
    package enum HostsFormat: String, Sendable, Hashable {
        /// A table with a header line.
        case text
        /// A JSON array of objects, one per host.
        case json
    }

    /// What to do.
    package var action: Action
    /// Forced or default; `nil` only for `list` (both).
    package var kind: FleetKind?
    /// Which hosts; `nil` only for `list` (every target).
    package var target: FleetTarget?
    /// The etcd client URLs (`-endpoints`, else `PREFERENCES_FLEET_ENDPOINTS`).
    package var endpoints: [String]
    /// The key prefix (`-prefix`, else `PREFERENCES_FLEET_PREFIX`, else `/preferences/`).
    package var prefix: String?
    /// The etcd user (`-user`, else `PREFERENCES_FLEET_USER`); its password comes from the file
    /// `PREFERENCES_FLEET_PASSWORD_FILE` names. TLS files, like the password file, come from the environment only
    /// (`PREFERENCES_FLEET_CA_FILE`, `PREFERENCES_FLEET_CRL_FILE`, `PREFERENCES_FLEET_CERTIFICATE_FILE`,
    /// `PREFERENCES_FLEET_KEY_FILE`).
    package var user: String?
    /// `-behind`: only the hosts that are behind (`fleet hosts`).
    package var behindOnly = false
    /// `-format`: how `fleet hosts` prints.
    package var hostsFormat: HostsFormat = .text
    /// `-wait`: after `fleet write` or `fleet delete`, wait until the hosts it targets have applied it.
    package var waits = false
    /// `-timeout`: how long `fleet wait` (and `-wait`) waits, in seconds.
    package var timeoutSeconds: Double = 60

    /// The actions, which a misspelled one is compared with.
    private static let actions = ["write", "read", "delete", "list", "status", "hosts", "wait"]
    /// The options before the domain, which a misspelled one is compared with.
    private static let options = [
        "-forced", "-default", "-all", "-group", "-host", "-endpoints", "-prefix", "-user", "-behind", "-format",
        "-wait", "-timeout",
    ]

    /// Parses the arguments after `fleet`.
    static func parse(_ reader: inout ArgumentReader) throws(DefaultsError) -> FleetCommand {
        guard let actionName = reader.next() else {
            throw .usage("fleet needs write, read, delete, list, hosts, wait or status")
        }
        var kind: FleetKind?
        var target: FleetTarget?
        var endpoints: [String] = []
        var prefix: String?
        var user: String?
        var behindOnly = false
        var hostsFormat = HostsFormat.text
        var waits = false
        var timeoutSeconds: Double?
        func setTarget(_ new: FleetTarget) throws(DefaultsError) {
            guard target == nil else { throw .usage("fleet takes one of -all, -group and -host") }
            target = new
        }
        while let option = reader.peek(), option.hasPrefix("-"), option != "-g", option != "-globalDomain" {
            reader.cursor += 1
            switch option {
            case "-forced", "-default":
                guard kind == nil else { throw .usage("fleet takes one of -forced and -default") }
                kind = option == "-forced" ? .forced : .default
            case "-all": try setTarget(.all)
            case "-group":
                guard let name = reader.next(), FleetTarget.isValidGroupName(name) else {
                    throw .usage("-group needs a group name (1-128 bytes of A-Z a-z 0-9 . _ -, not starting with .)")
                }
                try setTarget(.group(name))
            case "-host":
                guard let machineID = reader.next()?.lowercased(), FleetTarget.isValidMachineID(machineID) else {
                    throw .usage("-host needs a machine id (32 hexadecimal digits, as in /etc/machine-id)")
                }
                try setTarget(.host(machineID))
            case "-endpoints":
                guard let list = reader.next() else { throw .usage("-endpoints needs a comma-separated list of URLs") }
                endpoints = list.split(separator: ",").map(String.init)
            case "-prefix":
                guard let text = reader.next() else { throw .usage("-prefix needs a key prefix") }
                prefix = text
            case "-user":
                guard let name = reader.next(), !name.isEmpty else { throw .usage("-user needs an etcd user name") }
                user = name
            case "-behind": behindOnly = true
            case "-format":
                guard let name = reader.next(), let format = HostsFormat(rawValue: name) else {
                    throw .usage("-format of fleet hosts is text or json")
                }
                hostsFormat = format
            case "-wait": waits = true
            case "-timeout":
                guard let text = reader.next(), let seconds = Double(text), seconds.isFinite, seconds >= 0,
                    seconds <= 86_400
                else { throw .usage("-timeout needs a number of seconds from 0 to 86400") }
                timeoutSeconds = seconds
            default:
                throw .usage(
                    "fleet does not know the option \(option)"
                        + SpellingSuggestion.clause(for: option, among: Self.options))
            }
        }
        func domain() throws(DefaultsError) -> DomainName {
            guard let text = reader.next() else { throw .usage("fleet \(actionName) needs a domain") }
            let name = text == "-g" || text == "-globalDomain" ? DomainName.global.rawValue : text
            do {
                return try DomainName(name)
            } catch {
                throw DefaultsError(.invalidArgument, "defaults: \(error.message)")
            }
        }
        let action: Action
        switch actionName {
        case "write":
            let name = try domain()
            var assignments: [KeyAssignment] = []
            while !reader.isAtEnd {
                guard let key = try reader.key(required: true) else { throw .usage("a key is missing") }
                guard !reader.isAtEnd else { throw .usage("the value for key \(key) is missing") }
                let (value, mode) = try ValueParser.parseValue(
                    reader.arguments, cursor: &reader.cursor, allowsContainers: true)
                assignments.append(KeyAssignment(key: key, value: value, mode: mode))
                if reader.peek() == ValueParser.pairSeparator { reader.cursor += 1 }
            }
            guard !assignments.isEmpty else { throw .usage("fleet write needs a domain, a key and a value") }
            action = .write(name, assignments)
        case "read":
            action = .read(try domain(), key: try reader.key(required: false))
        case "delete":
            action = .delete(try domain(), key: try reader.key(required: false))
        case "list":
            action = .list
        case "status":
            // The local prefsd answers: etcd's endpoints, the prefix and the targets play no part.
            guard kind == nil, target == nil, endpoints.isEmpty, prefix == nil, user == nil else {
                throw .usage("fleet status takes no options: it asks this host's prefsd")
            }
            action = .status
        case "hosts":
            guard kind == nil else { throw .usage("fleet hosts lists hosts, not forced or default domains") }
            action = .hosts
        case "wait":
            guard kind == nil else { throw .usage("fleet wait waits for hosts, not for forced or default domains") }
            guard let text = reader.next(), let revision = Int64(text), revision > 0 else {
                throw .usage("fleet wait needs a revision (a positive integer, as fleet write prints)")
            }
            action = .wait(revision: revision)
        default:
            throw .usage(
                "fleet needs write, read, delete, list, hosts, wait or status (got \(actionName))"
                    + SpellingSuggestion.clause(for: actionName, among: Self.actions))
        }
        try reader.expectEnd()
        switch action {
        case .write, .read, .delete:
            guard kind != nil else { throw .usage("fleet \(actionName) needs -forced or -default") }
            if target == nil { target = .all }
        case .list, .status, .hosts, .wait: break
        }
        if behindOnly || hostsFormat != .text, action != .hosts {
            throw .usage("-behind and -format go with fleet hosts")
        }
        switch action {
        case .write, .delete: break
        case .read, .list, .status, .hosts, .wait:
            if waits { throw .usage("-wait goes with fleet write and fleet delete") }
        }
        if timeoutSeconds != nil, !waits, !action.isWait {
            throw .usage("-timeout goes with fleet wait, and with -wait")
        }
        var command = FleetCommand(
            action: action, kind: kind, target: target, endpoints: endpoints, prefix: prefix, user: user)
        command.behindOnly = behindOnly
        command.hostsFormat = hostsFormat
        command.waits = waits
        if let timeoutSeconds { command.timeoutSeconds = timeoutSeconds }
        return command
    }
}

extension FleetCommand.Action {
    /// Whether this is `fleet wait`.
    fileprivate var isWait: Bool {
        if case .wait = self { return true }
        return false
    }
}
