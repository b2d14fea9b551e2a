// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// One key of etcd as a range read or a watch event carries it.
package struct EtcdKeyValue: Sendable, Hashable {
    /// The key's bytes (etcd keys are bytes; ours are UTF-8 text).
    package var key: [UInt8]
    /// The value's bytes.
    package var value: [UInt8]
    /// The revision of the key's last modification.
    package var modRevision: Int64
    /// The revision at which the key was created.
    package var createRevision: Int64

    package init(key: [UInt8], value: [UInt8], modRevision: Int64, createRevision: Int64 = 0) {
        self.key = key
        self.value = value
        self.modRevision = modRevision
        self.createRevision = createRevision
    }

    /// The key as text.
    package var keyText: String { String(decoding: key, as: UTF8.self) }

    /// Reads the JSON gateway's form: `{"key": base64, "value": base64, "mod_revision": "12", …}`.
    init(json: PlistDictionary) throws(EtcdError) {
        key = try EtcdJSON.bytes(json, "key")
        value = (try? EtcdJSON.bytes(json, "value")) ?? []
        modRevision = try EtcdJSON.integer(json, "mod_revision") ?? 0
        createRevision = try EtcdJSON.integer(json, "create_revision") ?? 0
    }
}

/// One change a watch reports: a put (with the new value) or a delete.
package struct EtcdWatchEvent: Sendable, Hashable {
    /// Whether the key was written or removed.
    package enum Kind: Sendable, Hashable {
        /// The key was written.
        case put
        /// The key was removed.
        case delete
    }

    /// Whether the key was written or removed.
    package var kind: Kind
    /// The key, and for a put its new value; `modRevision` is the revision of the change.
    package var keyValue: EtcdKeyValue

    package init(kind: Kind, keyValue: EtcdKeyValue) {
        self.kind = kind
        self.keyValue = keyValue
    }
}

/// What a watch stream delivers: the watch's creation, a batch of events, or its end.
package enum EtcdWatchMessage: Sendable {
    /// The watch exists; events after `revision` will follow.
    case created(revision: Int64)
    /// Changes, in revision order, and the store's revision when they were sent.
    case events([EtcdWatchEvent], revision: Int64)
    /// A progress notification: nothing changed up to `revision`.
    case progress(revision: Int64)
}
