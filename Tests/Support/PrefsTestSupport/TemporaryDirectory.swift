// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A fresh directory under the system temp dir, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Creates the directory.
    public init(prefix: String = "prefs-test") throws {
        // NSTemporaryDirectory() ends in a slash: without it the path is canonical, as messages that resolve links
        // print it.
        var parent = NSTemporaryDirectory()
        while parent.count > 1 && parent.hasSuffix("/") { parent.removeLast() }
        let template = parent + "/\(prefix)-XXXXXX"
        var buffer = Array(template.utf8CString)
        guard let created = buffer.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CorpusError("mkdtemp failed for \(template)")
        }
        path = String(cString: created)
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
