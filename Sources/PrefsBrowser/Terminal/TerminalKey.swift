// SPDX-License-Identifier: Apache-2.0
import CPrefsCurses

/// A key the browser acts on.
enum TerminalKey: Hashable, Sendable {
    case character(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace, delete
    /// Control and a letter (`control("c")` is Control-C).
    case control(Character)
    /// The terminal changed size.
    case resize
    /// A key the browser does not use.
    case other

    init(character scalar: Unicode.Scalar) {
        switch scalar.value {
        case 9: self = .tab
        case 10, 13: self = .enter
        case 27: self = .escape
        case 8, 127: self = .backspace
        case 1...26: self = .control(Character(Unicode.Scalar(scalar.value + 96)!))
        case 0..<32: self = .other
        default: self = .character(Character(scalar))
        }
    }

    init(keyCode: Int32) {
        switch keyCode {
        case KEY_UP: self = .up
        case KEY_DOWN: self = .down
        case KEY_LEFT: self = .left
        case KEY_RIGHT: self = .right
        case KEY_PPAGE: self = .pageUp
        case KEY_NPAGE: self = .pageDown
        case KEY_HOME: self = .home
        case KEY_END: self = .end
        case KEY_ENTER: self = .enter
        case KEY_BACKSPACE: self = .backspace
        case KEY_DC: self = .delete
        case KEY_BTAB: self = .backTab
        case KEY_RESIZE: self = .resize
        default: self = .other
        }
    }
}
