// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsStore

/// What `defaults explain` prints: the layer that supplies a key's effective value, the values it shadows, and the
/// layers skipped because their file is broken.
struct KeyExplanation: Sendable {
    /// A layer that holds the key.
    struct Source: Sendable, Hashable {
        /// The layer, as `user com.example.App`, `forced NSGlobalDomain`, `registered`.
        var layer: String
        /// The layer's file, or `nil` for volatile layers.
        var path: String?
        /// The layer's value.
        var value: PlistValue
        /// For a fleet-managed layer: `etcd key /preferences/… revision 42`.
        var fleetSource: String?
    }

    /// A layer searched as empty because its file could not be read.
    struct Skipped: Sendable, Hashable {
        /// The layer.
        var layer: String
        /// Why, naming the file.
        var problem: String
    }

    /// The key.
    var key: String
    /// The layer whose value wins, or `nil` when no layer holds the key.
    var winner: Source?
    /// The lower layers that hold the key too, highest first.
    var shadowed: [Source]
    /// Layers skipped, in search order.
    var skipped: [Skipped]

    /// The text `explain` prints, one line per layer, each value on one line:
    ///
    /// ```
    /// Theme = dark from user com.example.App (/home/ada/.config/preferences/com.example.App.plist)
    ///   shadows light from shipped com.example.App (/usr/share/preferences/domains/com.example.App.plist)
    /// ```
    var text: String {
        func source(_ source: Source) -> String {
            let details = [source.path, source.fleetSource].compactMap { $0 }
            return source.value.compactDescription + " from " + source.layer
                + (details.isEmpty ? "" : " (" + details.joined(separator: "; ") + ")")
        }
        let name = PlistValue.quotedDefaultsText(key)
        var lines = [winner.map { "\(name) = \(source($0))" } ?? "\(name) is not set in any layer"]
        lines += shadowed.map { "  shadows \(source($0))" }
        lines += skipped.map { "  skipped \($0.layer): \($0.problem)" }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension KeyExplanation {
    /// The explanation of a store resolution, from either route.
    init(_ resolution: Resolution) {
        func source(_ candidate: Resolution.Candidate) -> Source {
            Source(
                layer: candidate.layer.description, path: candidate.path, value: candidate.value,
                fleetSource: candidate.fleetSource?.description)
        }
        self.init(
            key: resolution.key, winner: resolution.winner.map(source), shadowed: resolution.shadowed.map(source),
            skipped: resolution.skipped.map { Skipped(layer: $0.layer.description, problem: $0.error.description) })
    }
}
