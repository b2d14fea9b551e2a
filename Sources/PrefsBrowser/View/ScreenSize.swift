// SPDX-License-Identifier: Apache-2.0
/// A terminal's size in character cells.
struct ScreenSize: Hashable, Sendable {
    var rows: Int
    var columns: Int
}
