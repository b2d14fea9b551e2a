// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// Who made a change, as far as the server knows.
///
/// On the wire: `origin` is `{kind, pid, uid}`; `kind` is `client` or `file`, `pid` and `uid` are absent
/// when unknown.
public struct WireOrigin: Sendable, Hashable {
    /// How the change reached the server.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A request on a connection to the server; `pid` and `uid` are the peer's credentials.
        case client
        /// A change found on disk: a hand edit, or a program writing the files without the server.
        case file
    }

    /// How the change reached the server.
    public var kind: Kind
    /// The process that made the change, when known.
    public var pid: Int32?
    /// The user that made the change, when known.
    public var uid: UInt32?

    /// Creates an origin.
    /// - Parameters:
    ///   - kind: How the change reached the server.
    ///   - pid: The process, when known.
    ///   - uid: The user, when known.
    public init(_ kind: Kind, pid: Int32? = nil, uid: UInt32? = nil) {
        self.kind = kind
        self.pid = pid
        self.uid = uid
    }

    var dictionary: PlistDictionary {
        var result: PlistDictionary = ["kind": .string(kind.rawValue)]
        result.setIfPresent("pid", pid.map { .signed(Int64($0)) })
        result.setIfPresent("uid", uid.map { .signed(Int64($0)) })
        return result
    }

    init(dictionary: PlistDictionary, path: String) throws(WireError) {
        var fields = WireFields(dictionary, path: path)
        let kindName = try fields.string("kind")
        guard let kind = Kind(rawValue: kindName) else {
            throw WireError.badField(fields.path(of: "kind"), "must be client or file (got \"\(kindName)\")")
        }
        let pid = try fields.optionalInt64("pid", in: 0...Int64(Int32.max))
        let uid = try fields.optionalInt64("uid", in: 0...Int64(UInt32.max))
        try fields.finish()
        self.init(kind, pid: pid.map { Int32($0) }, uid: uid.map { UInt32($0) })
    }
}
