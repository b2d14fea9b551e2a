import PrefsPlist

extension WireRequest {
    /// Reads the most frequent requests straight from a frame's payload: `get`, `set` of a boolean, an integer, a
    /// real or an ASCII string, and `remove`, with ASCII domain and key.
    ///
    /// Such a request is a small binary property list dictionary of scalars, which ``BinaryFlatDictionary`` reads in
    /// place, so neither the payload's dictionary nor the ``WireFields`` bookkeeping is built. Anything else (another
    /// operation, a container or date value, a field of the wrong type or not part of the message, a missing field,
    /// a malformed payload) gives `nil`, and the caller decodes the payload the general way
    /// (``WireFrame/decodePayload(_:limits:)`` and ``init(dictionary:)``), which reads it or names the problem; where
    /// this gives a request, the general way gives the same one (tested, and checked by the wire fuzz harness).
    /// - Parameters:
    ///   - payload: A frame's payload, without its length prefix.
    ///   - limits: The connection's limits; those the general way applies apply here too.
    package init?(flatPayload payload: UnsafeRawBufferPointer, limits: WireLimits) {
        guard payload.count <= limits.maxFrameBytes, WireFrame.startsWithBinaryPlistMagic(payload) else {
            return nil
        }
        var fields = FlatFields()
        let complete = BinaryFlatDictionary.visit(payload, limits: limits.frameDecodingLimits) { name, scalar in
            fields.take(name, scalar)
        }
        guard complete, let request = fields.request() else { return nil }
        self = request
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
    mutating func take(_ name: UnsafeRawBufferPointer, _ scalar: BinaryFlatDictionary.Scalar) -> Bool {
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
            domain = Self.string(text)
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
    func request() -> WireRequest? {
        guard let id, let operation, let domain, let key else { return nil }
        let byHost = self.byHost ?? false
        let scope = self.scope ?? .user
        guard !byHost || scope == .user else { return nil }
        let address = WireDomain(domain, byHost: byHost, scope: scope)
        switch operation {
        case .get:
            guard value == nil, expectedVersion == nil else { return nil }
            return WireRequest(id: id, .get(address, key: key))
        case .set:
            guard let value else { return nil }
            return WireRequest(id: id, .set(address, key: key, value: value, expectedVersion: expectedVersion))
        case .remove:
            guard value == nil else { return nil }
            return WireRequest(id: id, .remove(address, key: key, expectedVersion: expectedVersion))
        default:
            return nil
        }
    }

    /// Whether the bytes are `name`'s, compared in place (the generic `elementsEqual` iterates byte by byte).
    private static func equals(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount, let base = bytes.baseAddress else {
            return bytes.count == name.utf8CodeUnitCount
        }
        let expected = name.utf8Start
        for index in 0..<bytes.count where base.load(fromByteOffset: index, as: UInt8.self) != expected[index] {
            return false
        }
        return true
    }

    private static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
