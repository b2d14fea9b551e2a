// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsAccess
import PrefsClient
import PrefsFleet
import PrefsPlist
import PrefsStore
import PrefsWire

extension CommandRunner {
    /// How many times `fleet write` and `fleet delete` read again and retry when another administrator changed the
    /// domain between their read and their transaction.
    static let fleetAttempts = 20

    /// Runs `defaults fleet …` against etcd.
    func fleet(_ command: FleetCommand) async throws(DefaultsError) -> Int32 {
        if command.action == .status { return try fleetStatus() }
        let variables = environment.variables
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
                caFile: path("PREFERENCES_FLEET_CA_FILE"), certificateFile: path("PREFERENCES_FLEET_CERTIFICATE_FILE"),
                keyFile: path("PREFERENCES_FLEET_KEY_FILE"))
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
                try await list(client: client, layout: layout, command: command)
            case .status:
                break  // Answered by prefsd, above.
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
                    try? console.writeOutput(value.defaultsDescription + "\n")
                } else {
                    try? console.writeOutput(PlistValue.dictionary(values).defaultsDescription + "\n")
                }
            case .write(let domain, let assignments):
                let etcdKey = layout.key(target: command.target ?? .all, kind: command.kind ?? .default, domain: domain)
                let revision = try await update(etcdKey, client: client) { values throws(DefaultsError) in
                    for assignment in assignments { try assignment.apply(to: &values, domainName: domain.rawValue) }
                }
                console.writeError("wrote \(etcdKey) at revision \(revision)\n")
            case .delete(let domain, let key):
                let etcdKey = layout.key(target: command.target ?? .all, kind: command.kind ?? .default, domain: domain)
                let revision = try await update(etcdKey, client: client) { values throws(DefaultsError) in
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
                console.writeError("deleted from \(etcdKey) at revision \(revision)\n")
            }
        } catch {
            throw DefaultsError(.storage, "defaults: \(error.message)", cause: error)
        }
        return 0
    }

    /// Reads the domain at `key`, edits it, and writes it back only if nobody changed it since (a transaction
    /// comparing its `mod_revision`); reads again and retries when someone did. An edit that leaves the domain
    /// empty removes the key.
    private func update(
        _ key: String, client: EtcdClient, _ edit: (inout PlistDictionary) throws(DefaultsError) -> Void
    ) async throws(EtcdError) -> Int64 {
        for _ in 0..<Self.fleetAttempts {
            let (current, _) = try await client.get(key)
            var values = try current.map { keyValue throws(EtcdError) in try decode(keyValue, key: key) } ?? [:]
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
                return try await client.compareAndSet(key, expectedModRevision: current?.modRevision ?? 0, mutation)
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

    /// Prints one line per managed domain: its target, kind, domain, revision and key count.
    private func list(client: EtcdClient, layout: FleetKeyLayout, command: FleetCommand) async throws(EtcdError) {
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
        try? console.writeOutput(lines.map { $0 + "\n" }.joined())
    }

    /// Runs `defaults fleet status`: asks this host's prefsd for its fleet state and prints it as `name: value` lines.
    /// Only prefsd talks to etcd, so without it there is nothing to report.
    private func fleetStatus() throws(DefaultsError) -> Int32 {
        let socketPath = AccessRoute.defaultSocketPath
        let result: WireResult
        do {
            result = try DaemonAccess(socketPath: socketPath, clientName: "defaults").send(.fleetStatus)
        } catch  where (error.cause as? PrefsClientError)?.code == .daemonUnavailable {
            throw DefaultsError(
                .storage,
                "defaults: fleet status needs prefsd, which is not running (nothing answers on \(socketPath)): "
                    + error.message)
        } catch {
            throw DefaultsError(.storage, "defaults: fleet status: \(error.message)", cause: error)
        }
        guard case .fleetStatus(let status) = result else {
            throw DefaultsError(.storage, "defaults: prefsd answered fleet status with a reply to \(result.operation)")
        }
        try console.writeOutput(Self.fleetStatusLines(status).map { $0 + "\n" }.joined())
        return 0
    }

    /// The lines `defaults fleet status` prints.
    static func fleetStatusLines(_ status: WireFleetStatus?) -> [String] {
        guard let status else { return ["state: not in a fleet (prefsd has no FleetEndpoints setting)"] }
        var lines = ["state: \(status.state.rawValue)"]
        if let endpoint = status.endpoint { lines.append("endpoint: \(endpoint)") }
        lines.append("revision: \(status.appliedRevision)")
        if let latest = status.latestRevision, let lag = status.lag {
            lines.append("latest revision: \(latest)")
            lines.append("lag: \(lag)")
        }
        if let error = status.lastError {
            lines.append("last error: \(error)")
            if let date = status.lastErrorDate {
                lines.append("last error date: \(PlistValue.date(date).defaultsDescription)")
            }
        }
        lines.append("refused values: \(status.refusedValues)")
        if let user = status.roamingUser {
            lines.append("roaming: \(status.roamingDomains.joined(separator: ", ")) as \(user)")
            lines.append("roaming changes waiting: \(status.roamingPending)")
        }
        lines.append("cache: \(status.cacheDirectory)")
        return lines
    }
}
