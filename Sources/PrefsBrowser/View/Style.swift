// SPDX-License-Identifier: Apache-2.0
/// How a run of text is drawn.
struct Style: Hashable, Sendable {
    /// A foreground colour: one per layer, plus the browser's own.
    enum Color: Hashable, Sendable {
        case forced, fleet, argument, byHost, user, global, system, shipped, registered
        case accent, warning, changed

        /// The colour's number among the basic eight.
        var basic: Int16 {
            switch self {
            case .forced, .warning: 1  // red
            case .user, .changed: 2  // green
            case .byHost, .accent: 3  // yellow
            case .system: 4  // blue
            case .fleet: 5  // magenta
            case .global, .argument: 6  // cyan
            case .shipped, .registered: 7  // white
            }
        }

        /// The colour's number among 256.
        var extended: Int16 {
            switch self {
            case .forced: 196
            case .fleet: 170
            case .argument: 45
            case .byHost: 178
            case .user: 114
            case .global: 80
            case .system: 75
            case .shipped: 250
            case .registered: 245
            case .accent: 214
            case .warning: 203
            case .changed: 156
            }
        }
    }

    var color: Color?
    var bold = false
    var reverse = false
    var dim = false
    var underline = false

    static let plain = Style()
}
