// SPDX-License-Identifier: Apache-2.0
/// The shape every module's error type shares: a stable code, a message for people, and the failure underneath.
///
/// Each module keeps its own error type (`PlistError`, `PrefsStoreError`, `PreferencesError` and the others), so
/// that a caller catches the type of the module it called; each declares its own `Code`, whose static members are
/// the codes of that module, and whatever else it carries (a file's path, a position in the input, the daemon's
/// answer). This protocol is what they have in common, and the one place that says how an error is shown: the
/// message, then a colon and the cause's own description when there is a cause. A cause is usually another module's
/// error, shown the same way, so a chain of causes reads as one line from the outermost failure to the system call
/// or parser position at its root, such as
/// `cannot write domain com.example.App: rename(…/com.example.App.plist): No space left on device`.
///
/// An error whose text is not "message: cause" (one that names a position, or is printed exactly as a command
/// prints it) declares its own `description` instead.
public protocol CodedError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure: a small value whose static members name the module's codes, stable across releases.
    associatedtype Code: Hashable, Sendable, CustomStringConvertible

    /// The kind of failure; compare it with the static members of `Code`.
    var code: Code { get }
    /// A sentence naming the problem and what it concerns (a domain, a key, a file, a setting).
    var message: String { get }
    /// The failure underneath, when a lower layer failed first.
    var cause: (any Error & Sendable)? { get }
}

extension CodedError {
    /// The message, followed by `": "` and the cause's description when there is a cause.
    public var description: String {
        guard let cause else { return message }
        return "\(message): \(cause)"
    }
}
