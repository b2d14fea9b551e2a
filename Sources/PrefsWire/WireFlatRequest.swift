// SPDX-License-Identifier: Apache-2.0
package import PrefsPlist

/// One of the most frequent requests, read straight from a frame's payload: `get`, `set` of a boolean, an integer, a
/// real or an ASCII string, or `remove`, with ASCII domain and key.
///
/// Such a request is a small binary property list dictionary of scalars, which ``BinaryFlatDictionary`` reads in
/// place, so neither the payload's dictionary nor the ``WireFields`` bookkeeping is built, and the daemon performs it
/// without the general ``WireRequest`` (a large enum, copied at every step). Anything else (another operation, a
/// container or date value, a field of the wrong type or not part of the message, a missing field, a malformed
/// payload) gives `nil`, and the caller decodes the payload the general way (``WireFrame/decodePayload(_:limits:)``
/// and ``WireRequest/init(dictionary:)``), which reads it or names the problem; where this gives a request, the
/// general way gives the same one (``request``; tested, and checked by the wire fuzz harness).
package struct WireFlatRequest: Sendable {
    /// What to do, with the value of a `set`.
    package enum Operation: Sendable {
        case get
        case set(PlistValue)
        case remove
    }

    /// The client's identifier for this request.
    package var id: UInt64
    package var operation: Operation
    package var domain: WireDomain
    package var key: String
    /// For `set` and `remove`: the compare-and-set version.
    package var expectedVersion: UInt64?

    /// The operation's name.
    package var name: WireOperation.Name {
        switch operation {
        case .get: .get
        case .set: .set
        case .remove: .remove
        }
    }

    /// The same request in its general form.
    package var request: WireRequest {
        switch operation {
        case .get: WireRequest(id: id, .get(domain, key: key))
        case .set(let value):
            WireRequest(id: id, .set(domain, key: key, value: value, expectedVersion: expectedVersion))
        case .remove: WireRequest(id: id, .remove(domain, key: key, expectedVersion: expectedVersion))
        }
    }

    /// Reads a frequent request from a frame's payload, or gives `nil` for anything else.
    /// - Parameters:
    ///   - payload: A frame's payload, without its length prefix.
    ///   - limits: The connection's limits; those the general way applies apply here too.
    ///   - recentDomain: The domain name of the connection's previous request, reused when this one names the same
    ///     domain; updated.
    package init?(payload: UnsafeRawBufferPointer, limits: WireLimits, recentDomain: inout RecentDomainName) {
        guard payload.count <= limits.maxFrameBytes, WireFrame.startsWithBinaryPlistMagic(payload) else {
            return nil
        }
        var fields = FlatFields()
        let complete = BinaryFlatDictionary.visit(payload, limits: limits.frameDecodingLimits) { name, scalar in
            fields.take(name, scalar, recentDomain: &recentDomain)
        }
        guard complete, let request = fields.request() else { return nil }
        self = request
    }

    init(id: UInt64, operation: Operation, domain: WireDomain, key: String, expectedVersion: UInt64?) {
        self.id = id
        self.operation = operation
        self.domain = domain
        self.key = key
        self.expectedVersion = expectedVersion
    }
}

/// The fields of a flat request as they are visited; each is taken at most once (the reader refuses a key twice).
private struct FlatFields {
    var id: UInt64?
    var operation: WireOperation.Name?
    var domain: String?
    var key: String?
    var value: PlistValue?
    var byHost: Bool?
    var scope: WireDomain.Scope?
    var expectedVersion: UInt64?

    /// Takes one field; `false` for a field or a type the fast path does not read.
    mutating func take(
        _ name: UnsafeRawBufferPointer, _ scalar: BinaryFlatDictionary.Scalar, recentDomain: inout RecentDomainName
    ) -> Bool {
        switch (name.count, scalar) {
        case (2, .integer(let integer)) where Self.equals(name, "id"):
            id = integer.uint64Value
            return id != nil
        case (2, .asciiString(let text)) where Self.equals(name, "op"):
            // Only the operations read here, named without making a string.
            operation =
                Self.equals(text, "get")
                ? .get : Self.equals(text, "set") ? .set : Self.equals(text, "remove") ? .remove : nil
            return operation != nil
        case (6, .asciiString(let text)) where Self.equals(name, "domain"):
            domain = recentDomain.name(text)
        case (3, .asciiString(let text)) where Self.equals(name, "key"):
            key = Self.string(text)
        case (5, _) where Self.equals(name, "value"):
            value =
                switch scalar {
                case .bool(let flag): .bool(flag)
                case .integer(let integer): .integer(integer)
                case .real(let real): .real(real)
                case .asciiString(let text): .string(Self.string(text))
                }
        case (6, .bool(let flag)) where Self.equals(name, "byHost"):
            byHost = flag
        case (5, .asciiString(let text)) where Self.equals(name, "scope"):
            scope = WireDomain.Scope(rawValue: Self.string(text))
            return scope != nil
        case (15, .integer(let integer)) where Self.equals(name, "expectedVersion"):
            expectedVersion = integer.uint64Value
            return expectedVersion != nil
        default:
            return false
        }
        return true
    }

    /// The request, when the fields make a complete one of the operations the fast path reads.
    func request() -> WireFlatRequest? {
        guard let id, let operation, let domain, let key else { return nil }
        let byHost = self.byHost ?? false
        let scope = self.scope ?? .user
        guard !byHost || scope == .user else { return nil }
        let flatOperation: WireFlatRequest.Operation
        switch operation {
        case .get:
            guard value == nil, expectedVersion == nil else { return nil }
            flatOperation = .get
        case .set:
            guard let value else { return nil }
            flatOperation = .set(value)
        case .remove:
            guard value == nil else { return nil }
            flatOperation = .remove
        default:
            return nil
        }
        return WireFlatRequest(
            id: id, operation: flatOperation, domain: WireDomain(domain, byHost: byHost, scope: scope), key: key,
            expectedVersion: expectedVersion)
    }

    /// Whether the bytes are `name`'s, compared in place.
    @inline(__always)
    private static func equals(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        RawBytes.equal(bytes, name)
    }

    private static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
