// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// Where a value comes from: the layer, the domain, and the file when there is one.
///
/// On the wire: `layer` (string, see ``WireLayer``), `domain` (string), `byHost` (boolean, default false),
/// `path` (string, absent for layers without a file), and for the fleet layers `fleetKey` (string) and
/// `fleetRevision` (integer), the etcd key and revision the value came from, when known.
public struct WireSource: Sendable, Hashable {
    /// The search-list layer.
    public var layer: WireLayer
    /// The domain name within that layer (`NSGlobalDomain` for the global layers).
    public var domain: String
    /// Whether the value came from the by-host variant.
    public var byHost: Bool
    /// The file the layer is stored in, when it has one.
    public var path: String?
    /// For a fleet layer, the etcd key the value came from.
    public var fleetKey: String?
    /// For a fleet layer, the etcd revision of ``fleetKey`` that prefsd applied.
    public var fleetRevision: Int64?

    /// Creates a source.
    /// - Parameters:
    ///   - layer: The search-list layer.
    ///   - domain: The domain name.
    ///   - byHost: Whether it is the by-host variant.
    ///   - path: The file, when the layer has one.
    ///   - fleetKey: For a fleet layer, the etcd key.
    ///   - fleetRevision: For a fleet layer, the etcd revision.
    public init(
        layer: WireLayer, domain: String, byHost: Bool = false, path: String? = nil, fleetKey: String? = nil,
        fleetRevision: Int64? = nil
    ) {
        self.layer = layer
        self.domain = domain
        self.byHost = byHost
        self.path = path
        self.fleetKey = fleetKey
        self.fleetRevision = fleetRevision
    }

    var dictionary: PlistDictionary {
        var result: PlistDictionary = ["layer": .string(layer.rawValue), "domain": .string(domain)]
        if byHost { result["byHost"] = .bool(true) }
        result.setIfPresent("path", path.map(PlistValue.string))
        result.setIfPresent("fleetKey", fleetKey.map(PlistValue.string))
        result.setIfPresent("fleetRevision", fleetRevision.map { PlistValue.integer(.init($0)) })
        return result
    }

    init(dictionary: PlistDictionary, path fieldPath: String) throws(WireError) {
        var fields = WireFields(dictionary, path: fieldPath)
        let layerName = try fields.string("layer")
        guard let layer = WireLayer(rawValue: layerName) else {
            throw WireError.badField(fields.path(of: "layer"), "names no known layer (got \"\(layerName)\")")
        }
        let domain = try fields.string("domain")
        let byHost = try fields.optionalBool("byHost") ?? false
        let path = try fields.optionalString("path")
        let fleetKey = try fields.optionalString("fleetKey")
        let fleetRevision = try fields.optionalInt64("fleetRevision", in: 0...Int64.max)
        try fields.finish()
        self.init(
            layer: layer, domain: domain, byHost: byHost, path: path, fleetKey: fleetKey, fleetRevision: fleetRevision)
    }
}
