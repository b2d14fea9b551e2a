// SPDX-License-Identifier: Apache-2.0
/// One typed value flag of `write` (`-int`, `-array`, …) as data, for the help text, the manual and completions.
package struct ValueFlag: Sendable {
    /// The names that select it: `-int` and `-integer`.
    package let names: [String]
    /// The help text's line: `-int[eger] <integer_value>`.
    package let usage: String
    /// The manual's description.
    package let manual: String

    /// Every flag, in the order of macOS's help text.
    package static let all: [ValueFlag] = [
        ValueFlag(names: ["-string"], usage: "-string <string_value>", manual: "The argument, as is."),
        ValueFlag(
            names: ["-data"], usage: "-data <hex_digits>",
            manual: "Bytes from hexadecimal digits (an odd count makes the first digit a byte of its own)."),
        ValueFlag(
            names: ["-int", "-integer"], usage: "-int[eger] <integer_value>",
            manual: "A decimal integer from -9223372036854775808 to 18446744073709551615."),
        ValueFlag(
            names: ["-float"], usage: "-float  <floating-point_value>",
            manual: "A real number, kept in double precision."),
        ValueFlag(
            names: ["-bool", "-boolean"], usage: "-bool[ean] (true | false | yes | no)",
            manual: "A boolean; the word is matched without regard to case."),
        ValueFlag(
            names: ["-date"], usage: "-date <date_rep>",
            manual: "A date: \"2024-05-01 12:30:00 +0000\" (any offset), \"2024-05-01T12:30:00Z\" or \"2024-05-01\"."),
        ValueFlag(
            names: ["-array"], usage: "-array <value1> <value2> ...",
            manual: "An array of the remaining arguments, each a value (but not -array or -dict)."),
        ValueFlag(
            names: ["-array-add"], usage: "-array-add <value1> <value2> ...",
            manual: "Appends to the key's array, or creates it when the key is absent."),
        ValueFlag(
            names: ["-dict"], usage: "-dict <key1> <value1> <key2> <value2> ...",
            manual: "A dictionary of the remaining arguments, taken as key/value pairs."),
        ValueFlag(
            names: ["-dict-add"], usage: "-dict-add <key1> <value1> ...",
            manual: "Adds to the key's dictionary, or creates it when the key is absent."),
    ]
}
