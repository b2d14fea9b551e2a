import PrefsPlist
import PrefsStore

extension CommandRunner {
    /// `write <domain> <domain_rep>`: replaces the domain with a dictionary.
    func replaceDomain(_ target: DomainTarget, representation: String) throws(DefaultsError) {
        guard case .dictionary(let values) = try ValueParser.parsePropertyListText(representation) else {
            throw DefaultsError(.invalidValue, "\nRep argument is not a dictionary\nDefaults have not been changed.\n")
        }
        try withStorage(target.paths) { storage throws(DefaultsError) in
            if let current = try currentValues(of: target, in: storage), current == values { return }
            try storage.replaceValues(of: target.id, with: values)
            try synchronize(storage, failure: "Could not write domain \(target.displayName); exiting")
        }
    }

    /// `write <domain> <key> <value> [-- <key> <value>]...`: every assignment in one change.
    ///
    /// Assignments apply in order to a copy of the domain (so `-array-add` twice appends twice), then the top-level
    /// keys they touched are written together.
    func write(_ assignments: [KeyAssignment], to target: DomainTarget) throws(DefaultsError) {
        try withStorage(target.paths) { storage throws(DefaultsError) in
            let current = try currentValues(of: target, in: storage)
            var values = current ?? [:]
            var touched: [String] = []
            for assignment in assignments {
                let combined = try assignment.combined(with: assignment.key.value(in: values))
                try assignment.key.set(combined, in: &values, domainName: target.displayName)
                touched.append(assignment.key.topLevelKey)
            }
            var changes: [String: PlistValue?] = [:]
            for key in touched { changes[key] = .some(values[key]) }
            try commit(changes, over: current, in: storage, target: target)
        }
    }

    /// `rename <domain> <old_key> <new_key>`: one change that removes the old key and sets the new one.
    func rename(_ old: String, to new: String, in target: DomainTarget) throws(DefaultsError) {
        try withStorage(target.paths) { storage throws(DefaultsError) in
            guard let value = try storage.values(of: target.id)?[old] else {
                throw DefaultsError(
                    .notFound, "Key \(old) does not exist in domain \(target.displayName); leaving defaults unchanged")
            }
            var changes: [String: PlistValue?] = [old: .none]
            changes[new] = .some(value)
            try storage.setValues(changes, in: target.id)
            try synchronize(storage, failure: "Failed to write domain \(target.displayName)")
        }
    }

    /// `delete <domain> [<key>]`. Deleting a domain whose file is corrupt sets the file aside (the storage warns).
    func delete(_ key: PlistKeyPath?, from target: DomainTarget) throws(DefaultsError) {
        let notFound = DefaultsError(
            .notFound, "\nDomain (\(target.identifier)) not found.\nDefaults have not been changed.\n")
        try withStorage(target.paths) { storage throws(DefaultsError) in
            let values: [String: PlistValue]?
            do throws(DefaultsError) {
                values = try storage.values(of: target.id)
            } catch  where error.code == .corruptDomain && key == nil {
                try storage.replaceValues(of: target.id, with: [:])
                try synchronize(storage, failure: "Could not write domain \(target.displayName); exiting")
                return
            }
            guard var values else { throw notFound }
            guard let key else {
                try storage.replaceValues(of: target.id, with: [:])
                try synchronize(storage, failure: "Could not write domain \(target.displayName); exiting")
                return
            }
            guard key.remove(from: &values) else { throw notFound }
            try storage.setValues([key.topLevelKey: values[key.topLevelKey]], in: target.id)
            try synchronize(storage, failure: "Could not write domain \(target.displayName); exiting")
        }
    }

    /// `import <domain> <path | ->`: sets every key of a dictionary in any format, as one change.
    func importDomain(_ target: DomainTarget, from source: String) throws(DefaultsError) {
        let bytes: [UInt8]
        if source.trimmingBlanks == "-" {
            bytes = try console.readInput()
        } else {
            let path = try environment.absolutePath(source)
            do {
                bytes = try SystemCalls.readFile(path)
            } catch {
                throw DefaultsError(.io, "Could not read data from \(source) (\(error.reason))", cause: error)
            }
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
        try withStorage(target.paths) { storage throws(DefaultsError) in
            let current = try currentValues(of: target, in: storage)
            try commit(entries.mapValues { .some($0) }, over: current, in: storage, target: target)
        }
    }

    /// The domain's values before a change, or `nil` when its file is corrupt (the write then sets it aside).
    private func currentValues(
        of target: DomainTarget, in storage: any DefaultsStorage
    ) throws(DefaultsError) -> [String: PlistValue]? {
        do throws(DefaultsError) {
            return try storage.values(of: target.id) ?? [:]
        } catch  where error.code == .corruptDomain {
            return nil
        }
    }

    /// Sets keys as one change and makes it durable, unless every key already holds its new value: the command's
    /// effect is then complete as of the moment it read the domain, and the file is left untouched (no lock, no
    /// write), as the store would leave it anyway.
    private func commit(
        _ changes: [String: PlistValue?], over current: [String: PlistValue]?, in storage: any DefaultsStorage,
        target: DomainTarget
    ) throws(DefaultsError) {
        if let current, changes.allSatisfy({ current[$0.key] == $0.value }) { return }
        try storage.setValues(changes, in: target.id)
        try synchronize(storage, failure: "Could not write domain \(target.displayName); exiting")
    }
}
