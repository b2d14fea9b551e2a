// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// The parameters of `hello`, the first request on every connection: the range of protocol versions the client
/// speaks, and optionally its name for the server's log.
///
/// On the wire: `version` (integer ≥ 1, the newest version the client speaks), `minVersion` (integer ≥ 1,
/// default `version`, the oldest), `client` (string, optional).
public struct WireHello: Sendable, Hashable {
    /// The newest protocol version the client speaks.
    public var version: Int
    /// The oldest protocol version the client speaks.
    public var minVersion: Int
    /// The client's name and version, for logs (e.g. `defaults 1.0`).
    public var client: String?

    /// Creates hello parameters.
    /// - Parameters:
    ///   - version: The newest version the client speaks.
    ///   - minVersion: The oldest version the client speaks; `nil` for `version` alone.
    ///   - client: The client's name, for logs.
    public init(version: Int = WireProtocol.currentVersion, minVersion: Int? = nil, client: String? = nil) {
        self.version = version
        self.minVersion = minVersion ?? version
        self.client = client
    }

    /// The version both sides speak: the newest one in both ranges.
    /// - Parameter supported: The versions the server speaks.
    /// - Throws: ``WireError`` `unsupportedVersion` when the ranges do not overlap.
    public func negotiatedVersion(
        supported: ClosedRange<Int> = WireProtocol.supportedVersions
    ) throws(WireError) -> Int {
        let newest = min(version, supported.upperBound)
        guard newest >= minVersion, newest >= supported.lowerBound else {
            throw WireError(
                .unsupportedVersion,
                "the client speaks protocol versions \(minVersion)–\(version), the server "
                    + "\(supported.lowerBound)–\(supported.upperBound)")
        }
        return newest
    }

    func encode(into dictionary: inout PlistDictionary) {
        dictionary["version"] = .signed(Int64(version))
        if minVersion != version { dictionary["minVersion"] = .signed(Int64(minVersion)) }
        dictionary.setIfPresent("client", client.map(PlistValue.string))
    }

    static func decode(from fields: inout WireFields) throws(WireError) -> WireHello {
        let version = try fields.positiveInt("version")
        var minVersion = version
        if fields.contains("minVersion") {
            minVersion = try fields.positiveInt("minVersion")
            guard minVersion <= version else {
                throw WireError.badField(
                    fields.path(of: "minVersion"), "must not be above `version` (\(minVersion) > \(version))")
            }
        }
        let client = try fields.optionalString("client")
        return WireHello(version: version, minVersion: minVersion, client: client)
    }
}
