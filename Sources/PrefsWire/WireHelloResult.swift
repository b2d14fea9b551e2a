// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// The result of `hello`: the negotiated version, the server's name, and its limits.
///
/// On the wire: `version` (integer), `server` (string), `limits` (dictionary, see ``WireLimits``).
public struct WireHelloResult: Sendable, Hashable {
    /// The protocol version the connection speaks from now on.
    public var version: Int
    /// The server's name and version, e.g. `prefsd 1.0`.
    public var server: String
    /// The limits the server enforces.
    public var limits: WireLimits

    /// Creates a hello result.
    /// - Parameters:
    ///   - version: The negotiated protocol version.
    ///   - server: The server's name and version.
    ///   - limits: The limits the server enforces.
    public init(version: Int, server: String, limits: WireLimits) {
        self.version = version
        self.server = server
        self.limits = limits
    }

    func encode(into dictionary: inout PlistDictionary) {
        dictionary["version"] = .signed(Int64(version))
        dictionary["server"] = .string(server)
        dictionary["limits"] = .dictionary(limits.dictionary)
    }

    static func decode(from fields: inout WireFields) throws(WireError) -> WireHelloResult {
        let version = try fields.positiveInt("version")
        let server = try fields.string("server")
        let limits = try WireLimits(dictionary: try fields.dictionary("limits"), path: fields.path(of: "limits"))
        return WireHelloResult(version: version, server: server, limits: limits)
    }
}
