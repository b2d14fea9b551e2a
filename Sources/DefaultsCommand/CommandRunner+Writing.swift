// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsAccess
import PrefsPOSIX
import PrefsPlist
import PrefsStore

extension CommandRunner {
    /// `write <domain> <domain_rep>`: replaces the domain with a dictionary.
    func replaceDomain(
        _ target: DomainTarget, representation: String, ignoresSchema: Bool = false
    ) throws(DefaultsError) {
        guard case .dictionary(let values) = try ValueParser.parsePropertyListText(representation) else {
            throw DefaultsError(.invalidValue, "\nRep argument is not a dictionary\nDefaults have not been changed.\n")
        }
        let schema = enforcedSchema(for: target, ignoresSchema: ignoresSchema)
        try withStorage(target.paths, firstRead: FirstRead(target.id)) { storage throws(DefaultsError) in
            let current: PlistDictionary?
            do throws(DefaultsError) {
                current = try checked { try storage.values(of: target.id) } ?? [:]
            } catch  where error.code == .corruptDomain {
                current = nil  // the write sets the broken file aside
            }
            if current == values { return }
            if let refusal = Self.schemaRefusal(schema, from: current ?? [:], to: values) { throw refusal }
            _ = try checked { try storage.replaceValues(of: target.id, with: values) }
            try synchronize(storage, failure: "Could not write domain \(target.displayName); exiting")
        }
    }

    /// `write <domain> <key> <value> [-- <key> <value>]...`: every assignment in one atomic change.
    ///
    /// Assignments apply in order to the domain as it is at that moment (so `-array-add` twice appends twice), and
    /// the result is committed only if no other writer changed the domain meanwhile; otherwise it is read and
    /// applied again. So 30 concurrent `-array-add` keep all 30 elements.
    ///
    /// A key that a forced layer (the administrator's or the fleet's) also holds is stored, but the forced value is
    /// what every program reads: a warning says so, naming the layer, as `explain` would.
    func write(
        _ assignments: [KeyAssignment], to target: DomainTarget, ignoresSchema: Bool = false
    ) throws(DefaultsError) {
        try modify(
            target, failure: "Could not write domain \(target.displayName); exiting",
            schema: enforcedSchema(for: target, ignoresSchema: ignoresSchema),
            afterwards: { storage throws(DefaultsError) in
                var keys: [String] = []
                for key in assignments.map(\.key.topLevelKey) where !keys.contains(key) { keys.append(key) }
                try warnAboutForcedValues(of: keys, in: target, storage)
            }
        ) { values throws(DefaultsError) in
            for assignment in assignments {
                try assignment.apply(to: &values, domainName: target.displayName)
            }
        }
    }

    /// Warns about each key whose effective value comes from a forced layer above the written one.
    private func warnAboutForcedValues(
        of keys: [String], in target: DomainTarget, _ storage: any DomainAccess
    ) throws(DefaultsError) {
        // A file given as a path has no layers above it; forced layers hold user and by-host domains' keys.
        guard !target.isFile, target.id.scope == .user || target.id.scope == .byHost else { return }
        // On the files, a look at the two forced layers (a `stat` each when, as nearly always, they have no file)
        // before the whole search list is resolved for the message; prefsd resolves in one request.
        if case .files = storage.route {
            var forced: PlistDictionary = [:]
            for scope in [DomainScope.forced, .fleetForced] {
                let values = try? storage.values(of: DomainID(target.id.name, scope: scope))
                forced.merge(values ?? [:]) { first, _ in first }
            }
            guard keys.contains(where: { forced[$0] != nil }) else { return }
        }
        let searchList = SearchList(domain: target.id.name)
        for key in keys {
            let resolution = try checked { try storage.resolve(key, in: searchList) }
            guard let winner = resolution.winner, case .domain(let layer) = winner.layer,
                layer.scope == .forced || layer.scope == .fleetForced
            else { continue }
            let origin = [winner.path, winner.fleetSource?.description].compactMap { $0 }
            console.writeError(
                "defaults: warning: \(PlistValue.quotedDefaultsText(key)) is stored in \(target.displayName), but "
                    + "\(winner.value.compactDescription) from \(winner.layer)"
                    + (origin.isEmpty ? "" : " (" + origin.joined(separator: "; ") + ")")
                    + " is in effect: a forced value wins over the user's (defaults explain \(target.displayName) "
                    + "\(PlistValue.quotedDefaultsText(key)))\n")
        }
    }

    /// `rename <domain> <old_key> <new_key>`: one atomic change that removes the old key and sets the new one.
    func rename(
        _ old: String, to new: String, in target: DomainTarget, ignoresSchema: Bool = false
    ) throws(DefaultsError) {
        try modify(
            target, failure: "Failed to write domain \(target.displayName)",
            schema: enforcedSchema(for: target, ignoresSchema: ignoresSchema)
        ) { values throws(DefaultsError) in
            guard let value = values.removeValue(forKey: old) else {
                throw DefaultsError(
                    .notFound, "Key \(old) does not exist in domain \(target.displayName); leaving defaults unchanged")
            }
            values[new] = value
        }
    }

    /// `delete <domain> [<key>]`. Deleting a domain whose file is corrupt sets the file aside (the storage warns);
    /// deleting a key path is one atomic change.
    func delete(_ key: PlistKeyPath?, from target: DomainTarget) throws(DefaultsError) {
        let notFound = DefaultsError(
            .notFound, "\nDomain (\(target.identifier)) not found.\nDefaults have not been changed.\n")
        let failure = "Could not write domain \(target.displayName); exiting"
        guard let key else {
            try withStorage(target.paths) { storage throws(DefaultsError) in
                do throws(DefaultsError) {
                    guard try checked({ try storage.values(of: target.id) }) != nil else { throw notFound }
                } catch  where error.code == .corruptDomain {
                    // Removing the domain sets its broken file aside.
                }
                _ = try checked { try storage.replaceValues(of: target.id, with: [:]) }
                try synchronize(storage, failure: failure)
            }
            return
        }
        try modify(target, failure: failure) { values throws(DefaultsError) in
            guard !values.isEmpty, key.remove(from: &values) else { throw notFound }
        }
    }

    /// The most `import` reads from a file, a device, a pipe or standard input: the largest domain the store keeps
    /// (its encoded size, `StoreLimits.default.maxDomainBytes`, 4 MiB), so a larger input could not be stored anyway.
    static let maxImportBytes = StoreLimits.default.maxDomainBytes

    /// `import <domain> <path | ->`: sets every key of a dictionary in any format, as one change.
    func importDomain(_ target: DomainTarget, from source: String, ignoresSchema: Bool = false) throws(DefaultsError) {
        let bytes: [UInt8]
        let path = source.trimmingBlanks == "-" ? nil : try environment.absolutePath(source)
        do throws(SystemCallError) {
            if let path {
                bytes = try SystemCalls.readFile(path, maxBytes: Self.maxImportBytes)
            } else {
                bytes = try console.readInput(maxBytes: Self.maxImportBytes)
            }
        } catch  where error.isTooLarge {
            throw DefaultsError(
                .io,
                "Could not read data from \(source) (\(error.reason): import reads at most "
                    + "\(Self.maxImportBytes) bytes, the size limit of a domain)", cause: error)
        } catch {
            throw DefaultsError(.io, "Could not read data from \(source) (\(error.reason))", cause: error)
        }
        let value: PlistValue
        do {
            value = try PlistSerialization.decode(bytes)
        } catch {
            throw DefaultsError(
                .invalidValue, "Could not parse property list from \(source) due to \(error)",
                cause: error as? PlistError)
        }
        guard case .dictionary(let entries) = value else {
            throw DefaultsError(
                .invalidValue,
                "Property list \(value.defaultsDescription) was not a dictionary\nDefaults have not been changed.\n")
        }
        try modify(
            target, failure: "Could not write domain \(target.displayName); exiting",
            schema: enforcedSchema(for: target, ignoresSchema: ignoresSchema)
        ) { values in
            values.merge(entries) { _, imported in imported }
        }
    }

    /// Changes a domain atomically and makes the change durable: `edit` gets the domain's values as they are now (empty
    /// for a domain that does not exist, or whose file is corrupt: the write sets that file aside) and changes them
    /// in place, and the result is committed only if no other writer changed the domain in between (otherwise `edit`
    /// runs again on the new values). An edit that changes nothing leaves the file untouched; one that throws changes
    /// nothing.
    /// - Parameters:
    ///   - failure: macOS's first line when the write fails.
    ///   - schema: The schema the changed keys' new values must satisfy, if any; a refusal changes nothing.
    ///   - afterwards: What to do with the storage once the change is committed (or changed nothing).
    private func modify(
        _ target: DomainTarget, failure: String, schema: DomainSchema? = nil,
        afterwards: ((any DomainAccess) throws(DefaultsError) -> Void)? = nil,
        _ edit: (inout PlistDictionary) throws(DefaultsError) -> Void
    ) throws(DefaultsError) {
        try withStorage(target.paths, firstRead: FirstRead(target.id)) { storage throws(DefaultsError) in
            let outcome: Result<Bool, DefaultsError>
            do throws(DefaultsError) {
                outcome = try checked {
                    try storage.update(target.id) { values -> Result<Bool, DefaultsError> in
                        var edited = values
                        do throws(DefaultsError) {
                            try edit(&edited)
                        } catch {
                            return .failure(error)
                        }
                        if let refusal = Self.schemaRefusal(schema, from: values, to: edited) {
                            return .failure(refusal)
                        }
                        let changed = edited != values
                        values = edited
                        return .success(changed)
                    }.outcome
                }
            } catch  where (error.cause as? PrefsAccessError)?.code == .ioFailure {
                // On the files the update is the durable write: its failure reads as a failed synchronize does.
                throw DefaultsError(error.code, failure + "\n" + error.message, path: error.path, cause: error.cause)
            }
            if try outcome.get() { try synchronize(storage, failure: failure) }
            try afterwards?(storage)
        }
    }
}
