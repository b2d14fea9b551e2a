// SPDX-License-Identifier: Apache-2.0
/// A whole screen of text, line by line, each line runs of styled text that fit the width they were made for.
struct Frame: Sendable {
    /// A run of text in one style; ``width`` is its width in cells.
    struct Segment: Sendable {
        var text: String
        var style: Style
        var width: Int
    }

    /// One line of the screen.
    struct Line: Sendable {
        var segments: [Segment] = []

        /// The line's text, without styles: what a screen capture shows.
        var text: String { segments.map(\.text).joined() }

        /// Adds `text`, made safe and fitted to exactly `width` cells (cut with `…`, or padded).
        mutating func append(_ text: String, width: Int, style: Style = .plain) {
            guard width > 0 else { return }
            let fitted = TextWidth.fit(TextWidth.escaped(text), to: width)
            segments.append(Segment(text: fitted, style: style, width: width))
        }
    }

    var lines: [Line]

    /// The frame's text, one line per row: what tests compare.
    var text: String { lines.map(\.text).joined(separator: "\n") }
}
