import Glibc
import PrefsPOSIX

/// The C calls of the module: the executable's path; the environment, the home directory and standard error are
/// `PrefsPOSIX`'s.
enum SystemInterface {
    /// The path of the running executable (`/proc/self/exe`), or `nil` when it cannot be read.
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An environment variable, or `nil` when unset or empty.
    static func environmentVariable(_ name: String) -> String? {
        guard let value = POSIX.environmentVariable(name), !value.isEmpty else { return nil }
        return value
    }

    /// The user's home directory: `HOME`, else the password database's entry.
    static func homeDirectory() -> String? {
        environmentVariable("HOME") ?? POSIX.homeDirectoryOfCurrentUser()
    }

    /// Writes text to standard error in full, ignoring failures.
    static func writeToStandardError(_ text: String) {
        POSIX.writeToStandardError(text)
    }
}
