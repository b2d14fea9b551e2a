// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// Anything a client reads from the server: a reply (it has `id`) or an event (it has `event`).
public enum WireServerMessage: Sendable, Hashable {
    /// The answer to one of the client's requests.
    case reply(WireReply)
    /// A subscription event, or the notice that the server is closing the connection.
    case event(WireEvent)

    /// The message as the dictionary of a frame.
    public var dictionary: PlistDictionary {
        switch self {
        case .reply(let reply): reply.dictionary
        case .event(let event): event.dictionary
        }
    }

    /// Reads a server message from the dictionary of a frame, strictly.
    /// - Parameter dictionary: The frame's dictionary.
    /// - Throws: ``WireError`` `badRequest` naming the field at fault (including a message with both or neither
    ///   of `id` and `event`), or `unknownOperation`.
    public init(dictionary: PlistDictionary) throws(WireError) {
        switch (dictionary["id"] != nil, dictionary["event"] != nil) {
        case (true, false): self = .reply(try WireReply(dictionary: dictionary))
        case (false, true): self = .event(try WireEvent(dictionary: dictionary))
        case (true, true): throw WireError.badField("event", "cannot be combined with `id`: events carry no `id`")
        case (false, false): throw WireError.badField("id", "is missing (a message needs `id` or `event`)")
        }
    }
}
