// SPDX-License-Identifier: Apache-2.0
import PrefsStore

/// Where a key's effective value comes from (``Preferences/source(forKey:)``): the layer and file that supply it,
/// the values it shadows, and the layers that could not be read.
///
/// Its ``description`` is what `defaults explain` prints:
///
/// ```
/// FontSize = 14 from user com.example.Editor (/home/ada/.config/preferences/com.example.Editor.plist)
///   shadows 12 from registered
/// ```
public struct PreferenceSource: Sendable, CustomStringConvertible {
    /// A layer that holds the key.
    public struct Candidate: Sendable, Hashable {
        /// The layer.
        public var layer: PreferenceLayer
        /// The layer's file, or `nil` for a volatile layer or an in-memory storage.
        public var path: String?
        /// The layer's value for the key.
        public var value: PlistValue
    }

    /// A layer searched as empty because its file cannot be read.
    public struct SkippedLayer: Sendable {
        /// The layer.
        public var layer: PreferenceLayer
        /// Why it was skipped: `corrupt` or `storeUnavailable`, naming the file.
        public var error: PreferencesError
    }

    /// The key explained.
    public let key: String
    /// The highest-priority layer holding the key: the one reads see. `nil` when no layer holds it.
    public let winner: Candidate?
    /// The lower-priority layers that also hold the key, highest first.
    public let shadowed: [Candidate]
    /// The layers searched as empty because their file cannot be read, in search order.
    public let skipped: [SkippedLayer]
    /// One line for the winner, then one per shadowed and skipped layer.
    public let description: String

    /// The effective value, or `nil` when no layer holds the key.
    public var value: PlistValue? { winner?.value }

    /// Whether the value comes from a forced layer, which no write through ``Preferences`` can change.
    public var isForced: Bool {
        if case .domain(_, let scope)? = winner?.layer { return scope == .forced || scope == .fleetForced }
        return false
    }

    init(_ resolution: Resolution) {
        func candidate(_ candidate: Resolution.Candidate) -> Candidate {
            Candidate(layer: PreferenceLayer(candidate.layer), path: candidate.path, value: candidate.value)
        }
        key = resolution.key
        winner = resolution.winner.map(candidate)
        shadowed = resolution.shadowed.map(candidate)
        skipped = resolution.skipped.map {
            SkippedLayer(layer: PreferenceLayer($0.layer), error: PreferencesError($0.error))
        }
        description = resolution.description
    }
}

extension Preferences {
    /// Explains a key's effective value: which layer (and file) supplies it, what it shadows, and which layers were
    /// skipped because their file cannot be read. Its description is what `defaults explain` prints.
    /// - Parameter key: The key.
    public func source(forKey key: String) -> PreferenceSource {
        PreferenceSource(engine.resolve(key, in: searchList))
    }

    /// The layers this instance searches, highest priority first: the order a read walks.
    public var searchOrder: [PreferenceLayer] {
        searchList.layers.map(PreferenceLayer.init)
    }
}
