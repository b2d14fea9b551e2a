// SPDX-License-Identifier: Apache-2.0

/// What the prefsd that serves a Preferences directory records in the directory's claim file,
/// `<prefs>/.locks/.prefsd` (which it holds locked while it runs): its pid, its socket, and the other layers it
/// serves, so that a second daemon can name it and a client can tell whether the daemon it talks to serves the
/// directories the client's environment names.
///
/// The file holds one `name value` line per field; a field without a value (no system layer) is left out.
package struct DaemonClaim: Sendable, Hashable {
    /// The daemon's process.
    package var processID: Int32
    /// The socket it serves.
    package var socketPath: String
    /// Its system layer's directory, or `nil` for none.
    package var systemDirectory: String?
    /// Its shipped registration defaults' directory, or `nil` for none.
    package var shippedDirectory: String?

    package init(processID: Int32, socketPath: String, systemDirectory: String?, shippedDirectory: String?) {
        self.processID = processID
        self.socketPath = socketPath
        self.systemDirectory = systemDirectory
        self.shippedDirectory = shippedDirectory
    }

    /// The claim file of a Preferences directory: a name no domain's lock file has (domain names do not start with
    /// `.`).
    package static func path(in preferencesDirectory: String) -> String { preferencesDirectory + "/.locks/.prefsd" }

    /// The file's text.
    package var text: String {
        var lines = ["pid \(processID)", "socket \(socketPath)"]
        if let systemDirectory { lines.append("system \(systemDirectory)") }
        if let shippedDirectory { lines.append("shipped \(shippedDirectory)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads a claim file's text; `nil` when it has no pid or socket (an empty file, another format).
    package init?(text: String) {
        var fields: [Substring: String] = [:]
        for line in text.split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            fields[line[..<space]] = String(line[line.index(after: space)...])
        }
        guard let pid = fields["pid"].flatMap({ Int32($0) }), let socket = fields["socket"] else { return nil }
        self.init(
            processID: pid, socketPath: socket, systemDirectory: fields["system"], shippedDirectory: fields["shipped"])
    }
}
