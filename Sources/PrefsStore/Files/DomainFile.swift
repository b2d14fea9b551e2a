// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsPOSIX
import PrefsPlist

/// Reading a domain's file, removing the temp files of writers that died, and setting a corrupt file aside.
enum DomainFile {
    /// What a domain's file holds.
    enum Contents {
        /// There is no file: the domain is empty.
        case missing
        /// The file's dictionary and identity.
        case values(PlistDictionary, FileIdentity)
        /// The file cannot be used. `isCorrupt` is true when it is not a property-list dictionary (it may then be
        /// set aside before a write); false when it could not be read at all (it is then left alone).
        case broken(PrefsStoreError, FileIdentity?, isCorrupt: Bool)

        /// The identity of the file read, when there was one.
        var identity: FileIdentity? {
            switch self {
            case .missing: nil
            case .values(_, let identity): identity
            case .broken(_, let identity, _): identity
            }
        }

        /// Whether the file looks like one being rewritten in place right now: empty or unparsable, and modified in
        /// the last two seconds. Such a file is read again shortly rather than taken as the domain's contents.
        func isUnsettled(now secondsSince1970: Double) -> Bool {
            let identity: FileIdentity
            switch self {
            case .broken(_, let brokenIdentity?, isCorrupt: true): identity = brokenIdentity
            case .values(let values, let valuesIdentity) where values.isEmpty && valuesIdentity.size == 0:
                identity = valuesIdentity
            default: return false
            }
            let modified = Double(identity.modificationSeconds) + Double(identity.modificationNanoseconds) / 1e9
            return secondsSince1970 - modified < 2
        }
    }

    /// Reads and decodes a domain's file.
    /// - Parameter home: The directory a symbolic link in the file's place may lead into
    ///   (``FileSystem/followedLink(at:home:)``); `nil` follows none.
    static func load(
        _ location: FileLocation, domain: DomainID, codec: StoreCodec, limits: StoreLimits, home: String?
    ) -> Contents {
        let path = location.path
        let contents: FileSystem.FileContents
        do {
            contents = try FileSystem.readFile(path, maxBytes: limits.maxDomainBytes, home: home)
        } catch {
            return .broken(
                PrefsStoreError(
                    .ioFailure, "cannot read \(path), the file of domain \(domain)", path: path, cause: error),
                nil, isCorrupt: false)
        }
        switch contents {
        case .missing:
            return .missing
        case .tooLarge(let size, let identity):
            return .broken(
                PrefsStoreError(
                    .limitExceeded,
                    "\(path), the file of domain \(domain), has \(size) bytes, beyond the domain size limit "
                        + "(maxDomainBytes = \(limits.maxDomainBytes))", path: path),
                identity, isCorrupt: false)
        case .contents(let bytes, let identity):
            switch decode(bytes, path: path, domain: domain, codec: codec, limits: limits) {
            case .success(let values): return .values(values, identity)
            case .failure(let error): return .broken(error, identity, isCorrupt: true)
            }
        }
    }

    /// Decodes a domain file's bytes; an empty file is an empty domain.
    static func decode(
        _ bytes: [UInt8], path: String, domain: DomainID, codec: StoreCodec, limits: StoreLimits
    ) -> Result<PlistDictionary, PrefsStoreError> {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .success([:]) }
        let plistLimits = PlistLimits(
            maxInputBytes: limits.maxDomainBytes, maxDepth: limits.maxDepth + 1,
            maxObjectCount: PlistLimits.default.maxObjectCount)
        let value: PlistValue
        do {
            value = try codec.decode(bytes, plistLimits)
        } catch let error as PlistError {
            return .failure(
                PrefsStoreError(
                    .corruptFile, "\(path), the file of domain \(domain), is corrupt", path: path, cause: error))
        } catch {
            return .failure(
                PrefsStoreError(.corruptFile, "\(path), the file of domain \(domain), is corrupt: \(error)", path: path)
            )
        }
        guard case .dictionary(let values) = value else {
            return .failure(
                PrefsStoreError(
                    .corruptFile,
                    "\(path), the file of domain \(domain), holds \(value.typeName == "array" ? "an" : "a") "
                        + "\(value.typeName), not a dictionary", path: path))
        }
        return .success(values)
    }

    /// Removes the temp files of `location` left by writers that died before renaming them into place.
    ///
    /// Call with the domain's lock held: writers create temp files only under it, so a temp file of a process that
    /// is gone, or one older than a minute, belongs to nobody.
    static func removeStaleTemporaryFiles(of location: FileLocation) {
        guard let names = try? FileSystem.directoryEntries(location.directory) else { return }
        let now = FileSystem.currentTimeSince1970()
        for name in names {
            guard let pid = TemporaryFileName.owner(of: name, fileName: location.fileName) else { continue }
            let path = location.directory + "/" + name
            let isAbandoned =
                pid == POSIX.processID || !FileSystem.processExists(pid)
                || ((try? FileSystem.identity(of: path)).flatMap {
                    $0.map { now - Double($0.modificationSeconds) > 60 }
                }
                    ?? false)
            if isAbandoned { try? POSIX.removeFile(path) }
        }
    }

    /// Renames a corrupt file to `<name>.corrupt-<UTC time>` (adding `-2`, `-3`… if that exists); never replaces
    /// a file. A name longer than 200 bytes is shortened as in temp files' names (`TemporaryFileName.tag(of:)`), so
    /// that the new name fits the file system's limit.
    /// - Returns: The new name.
    static func setAside(_ location: FileLocation) throws(SystemCallError) -> String {
        let stamp = timestamp(secondsSince1970: FileSystem.currentTimeSince1970())
        let stem = TemporaryFileName.tag(of: location.fileName)
        var attempt = 1
        while true {
            let name = "\(stem).corrupt-\(stamp)" + (attempt == 1 ? "" : "-\(attempt)")
            if try FileSystem.moveAside(location, to: name) { return name }
            attempt += 1
        }
    }

    /// `20240102T030405Z`.
    static func timestamp(secondsSince1970: Double) -> String {
        guard let c = PlistDate(secondsSince1970: secondsSince1970).components else { return "unknown-time" }
        func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(c.year)\(pad(c.month))\(pad(c.day))T\(pad(c.hour))\(pad(c.minute))\(pad(c.second))Z"
    }
}
