// SPDX-License-Identifier: Apache-2.0
public import PrefsPlist

/// The answer to "where does this value come from?": the winning layer, what it shadows, and what was skipped.
///
/// `defaults explain` prints this. A resolution exists even for an absent key, so that layers skipped because
/// their file is broken are still reported.
public struct Resolution: Sendable, CustomStringConvertible {
    /// A layer that holds the key.
    public struct Candidate: Sendable, Hashable {
        /// The layer.
        public var layer: Layer
        /// The layer's file, or `nil` for the volatile layers.
        public var path: String?
        /// The layer's value for the key.
        public var value: PlistValue
        /// For a fleet layer, the etcd key and revision the value came from, when the cache records them.
        public var fleetSource: FleetSource?

        package init(layer: Layer, path: String?, value: PlistValue, fleetSource: FleetSource? = nil) {
            self.layer = layer
            self.path = path
            self.value = value
            self.fleetSource = fleetSource
        }
    }

    /// A layer whose file could not be read, so that it was searched as if empty.
    public struct SkippedLayer: Sendable {
        /// The layer.
        public var layer: Layer
        /// Why it was skipped (a corrupt file, a file that cannot be read).
        public var error: PrefsStoreError

        package init(layer: Layer, error: PrefsStoreError) {
            self.layer = layer
            self.error = error
        }
    }

    /// The key looked up.
    public var key: String
    /// The highest-priority layer holding the key, or `nil` when no layer holds it.
    public var winner: Candidate?
    /// The lower-priority layers that also hold the key, highest priority first.
    public var shadowed: [Candidate]
    /// Layers searched as empty because their file could not be read, in search order.
    public var skipped: [SkippedLayer]

    package init(key: String, winner: Candidate?, shadowed: [Candidate], skipped: [SkippedLayer]) {
        self.key = key
        self.winner = winner
        self.shadowed = shadowed
        self.skipped = skipped
    }

    /// The effective value, or `nil` when no layer holds the key.
    public var value: PlistValue? { winner?.value }

    /// True when the effective value comes from a forced layer (the local or the fleet's), which no write can
    /// change.
    public var isForced: Bool {
        if case .domain(let id)? = winner?.layer { return id.scope.isForced }
        return false
    }

    /// One line per candidate and skipped layer, winner first: what `defaults explain` prints.
    ///
    /// ```
    /// Theme = dark from user com.example.App (/home/ada/.config/preferences/com.example.App.plist)
    ///   shadows light from fleet-managed default com.example.App (…/Fleet/default/com.example.App.plist; etcd key
    ///   /preferences/managed/all/default/com.example.App revision 42)
    ///   shadows light from registered
    /// ```
    public var description: String {
        func source(_ candidate: Candidate) -> String {
            var details = [String]()
            if let path = candidate.path { details.append(path) }
            if let fleetSource = candidate.fleetSource { details.append(fleetSource.description) }
            return "\(candidate.value.defaultsDescription) from \(candidate.layer)"
                + (details.isEmpty ? "" : " (" + details.joined(separator: "; ") + ")")
        }
        var lines = [winner.map { "\(key) = \(source($0))" } ?? "\(key) is not set in any layer"]
        lines += shadowed.map { "  shadows \(source($0))" }
        lines += skipped.map { "  skipped \($0.layer): \($0.error)" }
        return lines.joined(separator: "\n")
    }
}
