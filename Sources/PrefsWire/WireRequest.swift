// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// A request from a client: an `id` the reply will echo, and an operation.
///
/// On the wire: a dictionary with `id` (integer, 0 to 2⁶⁴−1, chosen by the client), `op` (string, the
/// operation's name) and the operation's parameter fields (see ``WireOperation``). Any other field is an error.
public struct WireRequest: Sendable, Hashable {
    /// The client's identifier for this request; the reply carries the same value.
    public var id: UInt64
    /// What to do.
    public var operation: WireOperation

    /// Creates a request.
    /// - Parameters:
    ///   - id: The identifier the reply will echo.
    ///   - operation: What to do.
    public init(id: UInt64, _ operation: WireOperation) {
        self.id = id
        self.operation = operation
    }

    /// Why a request dictionary was refused, and whether the refusal can be answered.
    public struct Rejection: Error, Sendable, Hashable {
        /// The request's `id`, when it could be read; `nil` means the reply could not be matched to the
        /// request, so the server sends the error in a `closing` event and closes the connection.
        public var id: UInt64?
        /// The error to send.
        public var error: WireError

        /// Creates a rejection.
        /// - Parameters:
        ///   - id: The request's `id`, if it could be read.
        ///   - error: The error to send.
        public init(id: UInt64?, error: WireError) {
            self.id = id
            self.error = error
        }

        /// The error reply to send, when the request's `id` is known.
        public var reply: WireReply? {
            id.map { WireReply(id: $0, .failure(error)) }
        }
    }

    /// The request as the dictionary of a frame.
    public var dictionary: PlistDictionary {
        var result: PlistDictionary = ["id": .unsigned(id), "op": .string(operation.name.rawValue)]
        operation.encodeParameters(into: &result)
        return result
    }

    /// Reads a request from the dictionary of a frame, strictly.
    /// - Parameter dictionary: The frame's dictionary.
    /// - Throws: ``Rejection`` carrying the `id` when it could be read, and a ``WireError``: `badRequest`
    ///   naming the missing, mistyped or unknown field, or `unknownOperation`.
    public init(dictionary: PlistDictionary) throws(Rejection) {
        var fields = WireFields(dictionary)
        let id: UInt64
        do throws(WireError) {
            id = try fields.uint64("id")
        } catch {
            throw Rejection(id: nil, error: error)
        }
        do throws(WireError) {
            let opName = try fields.string("op")
            guard let name = WireOperation.Name(rawValue: opName) else {
                throw WireError(.unknownOperation, "unknown operation \"\(opName)\"", field: "op")
            }
            let operation = try WireOperation.decodeParameters(name, from: &fields)
            try fields.finish()
            self.init(id: id, operation)
        } catch {
            throw Rejection(id: id, error: error)
        }
    }
}
