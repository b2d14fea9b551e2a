// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// A message the server sends without being asked: subscription events, and the notice that it is closing the
/// connection. Events never carry `id`.
///
/// On the wire: `event` names the kind; the other fields depend on it:
/// - `change`: `subscription`, `origin`, and the ``WireChange`` fields;
/// - `batch`: `subscription`, `origin`, `changes` (array of at least one ``WireChange`` dictionary), for the
///   changes of one atomic operation (`setMany`, `writeDomain`, `removeDomain`, or one re-read file);
/// - `resync`: `subscription`, `values`, `sequences` (a ``WireSnapshot``), replacing changes that were dropped
///   because the connection fell behind;
/// - `closing`: `error`; the server closes the connection after it.
public enum WireEvent: Sendable, Hashable {
    /// One key changed.
    case change(subscription: UInt64, WireChange, origin: WireOrigin)
    /// Several keys changed in one atomic operation.
    case batch(subscription: UInt64, [WireChange], origin: WireOrigin)
    /// Pending changes were dropped; this snapshot replaces them.
    case resync(subscription: UInt64, WireSnapshot)
    /// The server is closing the connection, for this reason.
    case closing(WireError)

    /// The name of an event kind, as the `event` field spells it.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `change`
        case change
        /// `batch`
        case batch
        /// `resync`
        case resync
        /// `closing`
        case closing
    }

    /// The event's kind.
    public var kind: Kind {
        switch self {
        case .change: .change
        case .batch: .batch
        case .resync: .resync
        case .closing: .closing
        }
    }

    /// The subscription the event belongs to; `nil` for `closing`.
    public var subscription: UInt64? {
        switch self {
        case .change(let subscription, _, _), .batch(let subscription, _, _), .resync(let subscription, _):
            subscription
        case .closing:
            nil
        }
    }

    /// The event as the dictionary of a frame.
    public var dictionary: PlistDictionary {
        var result: PlistDictionary = ["event": .string(kind.rawValue)]
        switch self {
        case .change(let subscription, let change, let origin):
            result["subscription"] = .unsigned(subscription)
            result["origin"] = .dictionary(origin.dictionary)
            change.encode(into: &result)
        case .batch(let subscription, let changes, let origin):
            result["subscription"] = .unsigned(subscription)
            result["origin"] = .dictionary(origin.dictionary)
            result["changes"] = .array(
                changes.map { change in
                    var fields: PlistDictionary = [:]
                    change.encode(into: &fields)
                    return .dictionary(fields)
                })
        case .resync(let subscription, let snapshot):
            result["subscription"] = .unsigned(subscription)
            snapshot.encode(into: &result)
        case .closing(let error):
            result["error"] = .dictionary(error.dictionary)
        }
        return result
    }

    /// Reads an event from the dictionary of a frame, strictly.
    /// - Parameter dictionary: The frame's dictionary.
    /// - Throws: ``WireError`` `badRequest` naming the missing, mistyped or unknown field.
    public init(dictionary: PlistDictionary) throws(WireError) {
        var fields = WireFields(dictionary)
        let kindName = try fields.string("event")
        guard let kind = Kind(rawValue: kindName) else {
            throw WireError.badField("event", "names no known event kind (got \"\(kindName)\")")
        }
        switch kind {
        case .change:
            let subscription = try fields.uint64("subscription")
            let origin = try WireOrigin(dictionary: try fields.dictionary("origin"), path: "origin")
            self = .change(subscription: subscription, try WireChange.decode(from: &fields), origin: origin)
        case .batch:
            let subscription = try fields.uint64("subscription")
            let origin = try WireOrigin(dictionary: try fields.dictionary("origin"), path: "origin")
            var changes: [WireChange] = []
            for (dictionary, path) in try fields.dictionaryArray("changes") {
                var entry = WireFields(dictionary, path: path)
                changes.append(try WireChange.decode(from: &entry))
                try entry.finish()
            }
            guard !changes.isEmpty else { throw WireError.badField("changes", "must hold at least one change") }
            self = .batch(subscription: subscription, changes, origin: origin)
        case .resync:
            self = .resync(subscription: try fields.uint64("subscription"), try WireSnapshot.decode(from: &fields))
        case .closing:
            self = .closing(try WireError(dictionary: try fields.dictionary("error")))
        }
        try fields.finish()
    }
}
