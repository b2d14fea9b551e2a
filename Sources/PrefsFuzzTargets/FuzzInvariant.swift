// SPDX-License-Identifier: Apache-2.0
/// The failure of a fuzz target's check: a crash with a message, so that libFuzzer saves the input.
///
/// `fatalError` rather than `precondition`: an optimized build drops a precondition's message.
enum FuzzInvariant {
    /// Crashes with `message` unless `condition` holds.
    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("fuzz invariant: \(message())") }
    }

    /// Crashes with `message`.
    static func fail(_ message: String) -> Never {
        fatalError("fuzz invariant: \(message)")
    }
}
