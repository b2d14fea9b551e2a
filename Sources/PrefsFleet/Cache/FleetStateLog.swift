// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX
import PrefsPlist

/// The log beside the fleet state (`Fleet/state.log`, docs/FLEET.md, "Cache"): each batch of changes the mirror
/// applies is appended as one record and made durable with `fdatasync`, and the log is folded into `state.plist`
/// once it outgrows it.
///
/// Appending costs no new file: replacing `state.plist` at every change created and deleted an inode each time,
/// which with many hosts on one disk was most of a change's cost. A record is its length (4 bytes, little-endian),
/// a checksum of its contents (FNV-1a, 8 bytes, little-endian), then its contents, a binary property list
/// `{Revision, Entries: {etcd key: {ModRevision, Values}}, Removed: [etcd key]}`. A crash may tear the last record;
/// the reader stops at the first record whose length or checksum does not hold, and the mirror cuts the log there.
package struct FleetStateLog: Sendable {
    /// One applied batch: the entries it set and the etcd keys it removed, and the revision it reached.
    package struct Record: Sendable, Hashable {
        /// The revision applied with this batch.
        package var revision: Int64
        /// The entries set, by etcd key.
        package var entries: [String: FleetMirror.Entry]
        /// The etcd keys whose entries were removed.
        package var removed: [String]

        package init(revision: Int64, entries: [String: FleetMirror.Entry], removed: [String]) {
            self.revision = revision
            self.entries = entries
            self.removed = removed
        }
    }

    /// What reading the log found.
    package struct Contents: Sendable {
        /// The whole records, in order.
        package var records: [Record]
        /// The bytes those records take; anything after them is a torn or damaged tail.
        package var validBytes: Int
        /// The file's size.
        package var totalBytes: Int
    }

    /// The log file.
    package let path: String

    /// The largest log read; a larger one is damaged (it is folded into the state long before).
    static let maxBytes = 512 << 20
    private static let headerBytes = 12

    package init(path: String) {
        self.path = path
    }

    /// Appends a record and makes it durable.
    /// - Returns: The log's size afterwards.
    /// - Throws: ``EtcdError`` with code `unavailable` naming the file when it cannot be written.
    package func append(_ record: Record) throws(EtcdError) -> Int {
        do {
            return try POSIX.appendDurably(Self.frame(record), to: path, newFileMode: 0o600)
        } catch {
            throw EtcdError(.unavailable, "cannot append to the fleet state log \(path): \(error)")
        }
    }

    /// Reads every whole record; a missing log has none.
    /// - Throws: ``EtcdError`` with code `unavailable` when the file cannot be read.
    package func read() throws(EtcdError) -> Contents {
        let bytes: [UInt8]
        do {
            bytes = try POSIX.readFile(path, maxBytes: Self.maxBytes)
        } catch  where error.errno == 2 {  // ENOENT: no log yet.
            return Contents(records: [], validBytes: 0, totalBytes: 0)
        } catch {
            throw EtcdError(.unavailable, "cannot read the fleet state log \(path): \(error)")
        }
        return Self.records(in: bytes)
    }

    /// Cuts the log to `length` bytes, durably: a torn tail, or everything once folded into the state.
    /// - Throws: ``EtcdError`` with code `unavailable` naming the file.
    package func truncate(to length: Int) throws(EtcdError) {
        do {
            try POSIX.truncateDurably(path, to: length)
        } catch {
            throw EtcdError(.unavailable, "cannot cut the fleet state log \(path): \(error)")
        }
    }

    /// A record as it is appended: header, then contents.
    package static func frame(_ record: Record) -> [UInt8] {
        let contents: PlistValue = .dictionary([
            "Revision": .integer(.init(record.revision)),
            "Entries": FleetMirror.Entry.plistValue(record.entries),
            "Removed": .array(record.removed.map(PlistValue.string)),
        ])
        // Strings, integers and decoded property-list values only: always encodable.
        let body = (try? PlistSerialization.encode(contents, format: .binary)) ?? []
        var framed: [UInt8] = []
        framed.reserveCapacity(headerBytes + body.count)
        withUnsafeBytes(of: UInt32(body.count).littleEndian) { framed.append(contentsOf: $0) }
        withUnsafeBytes(of: checksum(body).littleEndian) { framed.append(contentsOf: $0) }
        framed.append(contentsOf: body)
        return framed
    }

    /// The whole records at the start of `bytes`.
    package static func records(in bytes: [UInt8]) -> Contents {
        var records: [Record] = []
        var offset = 0
        while bytes.count - offset >= headerBytes {
            let length = bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
            let sum = bytes[offset + 4..<offset + 12].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let start = offset + headerBytes
            guard length <= bytes.count - start else { break }
            let body = Array(bytes[start..<start + length])
            guard checksum(body) == sum, let record = record(decoding: body) else { break }
            records.append(record)
            offset = start + length
        }
        return Contents(records: records, validBytes: offset, totalBytes: bytes.count)
    }

    private static func record(decoding body: [UInt8]) -> Record? {
        guard case .dictionary(let contents)? = try? PlistSerialization.decode(body),
            case .integer(let number)? = contents["Revision"], let revision = number.int64Value,
            case .dictionary(let stored)? = contents["Entries"], case .array(let removedValues)? = contents["Removed"]
        else { return nil }
        var entries: [String: FleetMirror.Entry] = [:]
        for (key, value) in stored {
            guard let entry = FleetMirror.Entry(plistValue: value) else { return nil }
            entries[key] = entry
        }
        var removed: [String] = []
        for value in removedValues {
            guard case .string(let key) = value else { return nil }
            removed.append(key)
        }
        return Record(revision: revision, entries: entries, removed: removed)
    }

    /// FNV-1a, 64 bits: enough to tell a torn or stale tail from a record (not a defence against forgery; the
    /// directory is the user's own, mode 0700).
    private static func checksum(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
