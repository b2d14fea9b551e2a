// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// An error as it travels on the wire: in a reply to the request that failed, or in the `closing` event that
/// ends a connection.
///
/// ``code`` is stable and meant for programs; ``message`` is a sentence for people. The optional fields give
/// programs the detail they need without parsing the message.
public struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code. The set is open: a client treats a code it does not know like ``internal``.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code as it appears on the wire.
        public let rawValue: String

        /// Creates a code from its wire spelling.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A request field is missing, has the wrong type or value, or is not part of the operation;
        /// ``WireError/field`` names it. Also: any request other than `hello` before `hello` succeeded.
        public static let badRequest = Code(rawValue: "badRequest")
        /// The `op` is not an operation of the negotiated protocol version.
        public static let unknownOperation = Code(rawValue: "unknownOperation")
        /// The server speaks no protocol version in the range `hello` offered.
        public static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
        /// The domain (`readDomain`, `removeDomain`) or subscription (`unsubscribe`) does not exist.
        public static let notFound = Code(rawValue: "notFound")
        /// A domain name breaks the naming rules (1–216 bytes of `[A-Za-z0-9._-]`, no leading `.`, never `..`); the
        /// message names the rule, such as the length limit.
        public static let invalidName = Code(rawValue: "invalidName")
        /// A request, a value or the connection count exceeds a limit; ``WireError/limit`` names it.
        public static let limitExceeded = Code(rawValue: "limitExceeded")
        /// The server refuses the peer (another uid) or the file system refused an operation.
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        /// A write addressed a read-only layer (system or forced); ``WireError/path`` names the file.
        public static let readOnly = Code(rawValue: "readOnly")
        /// The domain's version is not the request's `expectedVersion`; ``WireError/currentVersion`` is the
        /// version the domain has now.
        public static let versionConflict = Code(rawValue: "versionConflict")
        /// The store cannot read or write its files (disk full, I/O error); nothing was changed.
        public static let storeUnavailable = Code(rawValue: "storeUnavailable")
        /// A read (`get`, `readDomain`) met a domain whose file is not a property-list dictionary; the message gives
        /// the reason (with line and column), ``WireError/path`` the file, ``WireError/currentVersion`` the domain's
        /// version. A write to the domain is accepted: it sets the file aside (`<name>.corrupt-<time>`) and starts
        /// the domain anew, so a compare-and-set edit starts from an empty domain at that version.
        public static let corruptDomain = Code(rawValue: "corruptDomain")
        /// The peer sent bytes that are not a valid frame; the connection is closed.
        public static let malformedFrame = Code(rawValue: "malformedFrame")
        /// The server is stopping; the connection is closed and the client may reconnect.
        public static let shuttingDown = Code(rawValue: "shuttingDown")
        /// The connection was idle too long, or a frame did not arrive whole in time; the connection is closed and
        /// the client may reconnect.
        public static let timedOut = Code(rawValue: "timedOut")
        /// A bug or an unexpected failure in the server.
        public static let `internal` = Code(rawValue: "internal")

        /// Every code this version of the protocol defines.
        public static let allDefined: [Code] = [
            .badRequest, .unknownOperation, .unsupportedVersion, .notFound, .invalidName, .limitExceeded,
            .permissionDenied, .readOnly, .versionConflict, .storeUnavailable, .corruptDomain, .malformedFrame,
            .shuttingDown, .timedOut, .internal,
        ]

        /// The code as it appears on the wire.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence naming the problem.
    public var message: String
    /// The request field at fault (`badRequest`), as a path such as `changes[2].key`.
    public var field: String?
    /// The limit that was exceeded (`limitExceeded`).
    public var limit: WireLimit?
    /// The domain's version now (`versionConflict`, `corruptDomain`, `notFound` of `readDomain`).
    public var currentVersion: UInt64?
    /// The file concerned (`readOnly`, `storeUnavailable`, `corruptDomain`, `permissionDenied`).
    public var path: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A sentence naming the problem.
    ///   - field: The request field at fault.
    ///   - limit: The limit that was exceeded.
    ///   - currentVersion: The domain's version now.
    ///   - path: The file concerned.
    public init(
        _ code: Code, _ message: String, field: String? = nil, limit: WireLimit? = nil,
        currentVersion: UInt64? = nil, path: String? = nil
    ) {
        self.code = code
        self.message = message
        self.field = field
        self.limit = limit
        self.currentVersion = currentVersion
        self.path = path
    }

    /// A `badRequest` error about one field.
    /// - Parameters:
    ///   - field: The field's path.
    ///   - problem: What is wrong with it, completing "field `x` …".
    public static func badField(_ field: String, _ problem: String) -> WireError {
        WireError(.badRequest, "field `\(field)` \(problem)", field: field)
    }

    /// A `limitExceeded` error naming the limit and its value.
    /// - Parameters:
    ///   - limit: The limit.
    ///   - value: The limit's value.
    ///   - what: What exceeded it, e.g. "key of 2000 bytes".
    public static func limitExceeded(_ limit: WireLimit, value: Int, _ what: String) -> WireError {
        WireError(.limitExceeded, "\(what) exceeds \(limit.rawValue) (\(value))", limit: limit)
    }

    /// The code and message, as a log should show them.
    public var description: String { "\(code): \(message)" }
}

extension WireError {
    /// The error as the `error` dictionary of a reply or `closing` event.
    public var dictionary: PlistDictionary {
        var result: PlistDictionary = ["code": .string(code.rawValue), "message": .string(message)]
        if let field { result["field"] = .string(field) }
        if let limit { result["limit"] = .string(limit.rawValue) }
        if let currentVersion { result["currentVersion"] = .integer(PlistInteger(currentVersion)) }
        if let path { result["path"] = .string(path) }
        return result
    }

    /// Reads the `error` dictionary of a reply or `closing` event.
    ///
    /// Unknown codes are kept as they are; an unknown `limit` name is kept in the message only, so that a
    /// newer server's limits do not make its errors unreadable.
    /// - Parameters:
    ///   - dictionary: The error's fields.
    ///   - path: Where the dictionary sits in its message, for error messages.
    /// - Throws: ``WireError`` `badRequest` naming the missing, mistyped or unknown field.
    public init(dictionary: PlistDictionary, path: String = "error") throws(WireError) {
        var fields = WireFields(dictionary, path: path)
        let code = try fields.string("code")
        let message = try fields.string("message")
        let field = try fields.optionalString("field")
        let limitName = try fields.optionalString("limit")
        let currentVersion = try fields.optionalUInt64("currentVersion")
        let filePath = try fields.optionalString("path")
        try fields.finish()
        self.init(
            Code(rawValue: code), message, field: field, limit: limitName.flatMap(WireLimit.init(rawValue:)),
            currentVersion: currentVersion, path: filePath)
    }
}
