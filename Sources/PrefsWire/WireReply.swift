// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// The server's answer to one request: the request's `id`, and a result or an error.
///
/// On the wire: a success is `id`, `op` (the request's operation) and the result's fields (see
/// ``WireResult``); a failure is `id` and `error` (see ``WireError``). Replies never carry `event`.
public struct WireReply: Sendable, Hashable {
    /// The `id` of the request answered.
    public var id: UInt64
    /// The result, or why the request failed.
    public var outcome: Result<WireResult, WireError>

    /// Creates a reply.
    /// - Parameters:
    ///   - id: The `id` of the request answered.
    ///   - outcome: The result or the error.
    public init(id: UInt64, _ outcome: Result<WireResult, WireError>) {
        self.id = id
        self.outcome = outcome
    }

    /// The reply as the dictionary of a frame.
    public var dictionary: PlistDictionary {
        var result: PlistDictionary = ["id": .unsigned(id)]
        switch outcome {
        case .success(let value):
            result["op"] = .string(value.operation.rawValue)
            value.encodeFields(into: &result)
        case .failure(let error):
            result["error"] = .dictionary(error.dictionary)
        }
        return result
    }

    /// Reads a reply from the dictionary of a frame, strictly.
    /// - Parameter dictionary: The frame's dictionary.
    /// - Throws: ``WireError`` `badRequest` naming the missing, mistyped or unknown field, or `unknownOperation`
    ///   for an `op` this version does not define.
    public init(dictionary: PlistDictionary) throws(WireError) {
        var fields = WireFields(dictionary)
        let id = try fields.uint64("id")
        if let error = try fields.optionalDictionary("error") {
            let wireError = try WireError(dictionary: error)
            try fields.finish()
            self.init(id: id, .failure(wireError))
            return
        }
        let opName = try fields.string("op")
        guard let name = WireOperation.Name(rawValue: opName) else {
            throw WireError(.unknownOperation, "reply for unknown operation \"\(opName)\"", field: "op")
        }
        let result = try WireResult.decodeFields(name, from: &fields)
        try fields.finish()
        self.init(id: id, .success(result))
    }
}
