// SPDX-License-Identifier: Apache-2.0
package import DefaultsArguments
package import DefaultsCommand
import PrefsDomain
import PrefsFleet
import PrefsPOSIX
import PrefsPlist

/// The fleet actions of `defaults fleet` that talk to etcd (`write`, `read`, `delete`, `list`, `hosts`, `wait`), run by the
/// `defaults-fleet` executable: the etcd client, its HTTP/1.1 on SwiftNIO and its TLS on OpenSSL stay out of
/// `defaults` (docs/FLEET.md).
package struct EtcdFleetAdministration: FleetAdministration {
    /// How many times `fleet write` and `fleet delete` read again and retry when another administrator changed the
    /// domain between their read and their transaction.
    static let fleetAttempts = 20

    /// Creates the fleet actions.
    package init() {}

    /// Runs `defaults fleet …` against etcd.
    package func run(_ command: FleetCommand, context: FleetContext) async throws(DefaultsError) {
        let variables = context.variables
        var endpointTexts = command.endpoints
        if endpointTexts.isEmpty, let list = variables["PREFERENCES_FLEET_ENDPOINTS"] {
            endpointTexts = list.split(separator: ",").map(String.init)
        }
        guard !endpointTexts.isEmpty else {
            throw DefaultsError(
                .invalidArgument,
                "defaults: fleet needs etcd endpoints: -endpoints URL[,URL…] or PREFERENCES_FLEET_ENDPOINTS")
        }
        let client: EtcdClient
        let layout: FleetKeyLayout
        do throws(EtcdError) {
            var credentials: EtcdCredentials?
            if let user = command.user ?? variables["PREFERENCES_FLEET_USER"], !user.isEmpty {
                guard let passwordFile = variables["PREFERENCES_FLEET_PASSWORD_FILE"], !passwordFile.isEmpty else {
                    throw EtcdError(
                        .invalidArgument,
                        "fleet needs the password of etcd user \(user) in a file that PREFERENCES_FLEET_PASSWORD_FILE "
                            + "names")
                }
                credentials = EtcdCredentials(
                    user: user, password: try EtcdCredentials.readPassword(fromFile: passwordFile))
            }
            let endpoints = try endpointTexts.map { text throws(EtcdError) in try EtcdEndpoint(text) }
            // An empty variable is an unset one, as for the user and the password file.
            func path(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
            let files = EtcdTLSConfiguration(
                caFile: path("PREFERENCES_FLEET_CA_FILE"), crlFile: path("PREFERENCES_FLEET_CRL_FILE"),
                certificateFile: path("PREFERENCES_FLEET_CERTIFICATE_FILE"), keyFile: path("PREFERENCES_FLEET_KEY_FILE")
            )
            guard (files.certificateFile == nil) == (files.keyFile == nil) else {
                throw EtcdError(
                    .invalidArgument,
                    "fleet needs PREFERENCES_FLEET_CERTIFICATE_FILE and PREFERENCES_FLEET_KEY_FILE together")
            }
            client = EtcdClient(
                endpoints: endpoints, credentials: credentials,
                tls: try EtcdTLSContext.forEndpoints(endpoints, configuration: files))
            layout = try FleetKeyLayout(
                prefix: command.prefix ?? variables["PREFERENCES_FLEET_PREFIX"] ?? FleetKeyLayout.defaultPrefix)
        } catch {
            throw DefaultsError(.invalidArgument, "defaults: \(error.message)")
        }
        do throws(EtcdError) {
            try await client.authenticate()  // A wrong password is reported before anything is read.
            switch command.action {
            case .list:
                let listing = try await list(client: client, layout: layout, command: command)
                try? context.writeOutput(listing)
            case .status:
                break  // Answered by prefsd, in defaults.
            case .hosts:
                let (roster, _) = try await roster(client: client, layout: layout)
                try? context.writeOutput(
                    hostsListing(roster, command: command, now: POSIX.currentTimeSince1970()))
            case .wait(let revision):
                let outcome = try await waitForHosts(
                    revision: revision, target: command.target ?? .all, timeout: .seconds(command.timeoutSeconds),
                    client: client, layout: layout)
                guard outcome.complete else { throw EtcdError(.timedOut, outcome.summary) }
                context.writeError(outcome.summary + "\n")
            case .read(let domain, let key):
                let etcdKey = layout.key(target: command.target ?? .all, kind: command.kind ?? .default, domain: domain)
                let (keyValue, _) = try await client.get(etcdKey)
                guard let keyValue else {
                    throw EtcdError(.invalidArgument, "Domain \(etcdKey) does not exist")
                }
                let values = try decode(keyValue, key: etcdKey)
                if let key {
                    guard let value = key.value(in: values) else {
                        throw EtcdError(
                            .invalidArgument, "The domain/default pair of (\(etcdKey), \(key)) does not exist")
                    }
                    try? context.writeOutput(value.defaultsDescription + "\n")
                } else {
                    try? context.writeOutput(PlistValue.dictionary(values).defaultsDescription + "\n")
                }
            case .write(let domain, let assignments):
                let etcdKey = layout.key(target: command.target ?? .all, kind: command.kind ?? .default, domain: domain)
                let revision = try await update(
                    etcdKey, client: client, replacingUnreadable: true, warn: context.writeError
                ) { values throws(DefaultsError) in
                    for assignment in assignments { try assignment.apply(to: &values, domainName: domain.rawValue) }
                }
                try await report("wrote \(etcdKey) at revision \(revision)", revision, command, client, layout, context)
            case .delete(let domain, let key):
                let etcdKey = layout.key(target: command.target ?? .all, kind: command.kind ?? .default, domain: domain)
                let revision = try await update(
                    etcdKey, client: client, replacingUnreadable: key == nil, warn: context.writeError
                ) { values throws(DefaultsError) in
                    if let key {
                        guard key.value(in: values) != nil else {
                            throw DefaultsError(
                                .notFound, "The domain/default pair of (\(etcdKey), \(key)) does not exist")
                        }
                        _ = key.remove(from: &values)
                    } else {
                        values = [:]
                    }
                }
                try await report(
                    "deleted from \(etcdKey) at revision \(revision)", revision, command, client, layout, context)
            }
        } catch {
            throw DefaultsError(.storage, "defaults: \(error.message)", cause: error)
        }
    }

    /// Prints what a write or delete did; with `-wait`, waits for the hosts it targets and says how many have it.
    private func report(
        _ sentence: String, _ revision: Int64, _ command: FleetCommand, _ client: EtcdClient, _ layout: FleetKeyLayout,
        _ context: FleetContext
    ) async throws(EtcdError) {
        guard command.waits else {
            context.writeError(sentence + "\n")
            return
        }
        let outcome = try await waitForHosts(
            revision: revision, target: command.target ?? .all, timeout: .seconds(command.timeoutSeconds),
            client: client, layout: layout)
        guard outcome.complete else { throw EtcdError(.timedOut, sentence + "; " + outcome.summary) }
        context.writeError(sentence + "; " + outcome.summary + "\n")
    }

    /// Reads the domain at `key`, edits it, and writes it back only if nobody changed it since (a transaction
    /// comparing its `mod_revision`); reads again and retries when someone did. An edit that leaves the domain
    /// empty removes the key.
    ///
    /// A value that is not a property-list dictionary (written by another tool, or damaged) is replaced when
    /// `replacingUnreadable` (a write starts from an empty domain, a delete of the whole domain removes it), with a
    /// warning naming what was replaced; otherwise it is refused, saying how to repair it.
    private func update(
        _ key: String, client: EtcdClient, replacingUnreadable: Bool, warn: (String) -> Void,
        _ edit: (inout PlistDictionary) throws(DefaultsError) -> Void
    ) async throws(EtcdError) -> Int64 {
        for _ in 0..<Self.fleetAttempts {
            let (current, _) = try await client.get(key)
            var values: PlistDictionary = [:]
            var replaced: String?
            if let current {
                do {
                    values = try decode(current, key: key)
                } catch {
                    guard replacingUnreadable else {
                        throw EtcdError(
                            .malformedResponse,
                            "\(error.message); fleet delete of the whole domain removes it, and fleet write replaces it"
                        )
                    }
                    replaced =
                        "warning: replacing the unreadable value of \(key) at revision \(current.modRevision) "
                        + "(\(current.value.count) bytes, not a property list dictionary)"
                }
            }
            do {
                try edit(&values)
            } catch {
                throw EtcdError(.invalidArgument, error.message)
            }
            let mutation: EtcdClient.Mutation
            if values.isEmpty {
                guard current != nil else { throw EtcdError(.invalidArgument, "Domain \(key) does not exist") }
                mutation = .delete
            } else {
                let bytes: [UInt8]
                do {
                    bytes = try PlistSerialization.encode(.dictionary(values), format: .binary)
                } catch {
                    throw EtcdError(.invalidArgument, "cannot encode the domain: \(error)")
                }
                mutation = .put(bytes)
            }
            do {
                let revision = try await client.compareAndSet(
                    key, expectedModRevision: current?.modRevision ?? 0, mutation)
                if let replaced { warn(replaced + "\n") }
                return revision
            } catch  where error.code == .conflict {
                continue  // Another administrator's change went first: edit their version.
            }
        }
        throw EtcdError(
            .conflict, "\(key) changed under each of \(Self.fleetAttempts) attempts to update it; nothing was written")
    }

    private func decode(_ keyValue: EtcdKeyValue, key: String) throws(EtcdError) -> PlistDictionary {
        guard case .dictionary(let values)? = try? PlistSerialization.decode(keyValue.value) else {
            throw EtcdError(
                .malformedResponse,
                "\(key) at revision \(keyValue.modRevision) does not hold a property list dictionary")
        }
        return values
    }

    /// One line per managed domain: its target, kind, domain, revision and key count.
    private func list(
        client: EtcdClient, layout: FleetKeyLayout, command: FleetCommand
    ) async throws(EtcdError) -> String {
        let prefix: String =
            if let target = command.target, let kind = command.kind {
                layout.prefix(target: target, kind: kind)
            } else {
                layout.managedPrefix
            }
        let result = try await client.range(prefix: prefix)
        var lines: [String] = []
        for keyValue in result.keyValues {
            guard let managed = try? layout.parse(keyValue.keyText) else {
                lines.append("\(keyValue.keyText) (not a managed domain key) revision \(keyValue.modRevision)")
                continue
            }
            if let kind = command.kind, managed.kind != kind { continue }
            if let target = command.target, managed.target != target { continue }
            let count = (try? decode(keyValue, key: keyValue.keyText).count).map { "\($0) keys" } ?? "unreadable"
            lines.append(
                "\(managed.target) \(managed.kind.rawValue) \(managed.domain) revision \(keyValue.modRevision) (\(count))"
            )
        }
        return lines.map { $0 + "\n" }.joined()
    }
}
