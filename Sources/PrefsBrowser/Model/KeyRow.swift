// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsStore

/// One effective key of a domain: its value, the layer that supplies it, and how many lower layers it shadows.
struct KeyRow: Sendable {
    let key: String
    let value: PlistValue
    /// The winning layer.
    let layer: Layer
    /// How many lower layers also hold the key.
    var shadowedLayers = 0

    init(key: String, value: PlistValue, layer: Layer) {
        self.key = key
        self.value = value
        self.layer = layer
    }

    /// The domain of the winning layer.
    var domain: DomainID? {
        if case .domain(let id) = layer { return id }
        return nil
    }

    /// Whether the administrator (locally or through the fleet) forces the value: it cannot be edited.
    var isForced: Bool { domain?.scope.isForced ?? false }
}
