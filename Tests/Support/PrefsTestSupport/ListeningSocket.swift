// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Waiting for a Unix socket that another process binds, such as `systemd-socket-activate`'s.
public enum ListeningSocket {
    /// Waits until something listens on `path`, without connecting (a connection would start an activated
    /// service): the file appears at `bind`, a moment before `listen`, and a connection in between is refused.
    /// - Throws: ``TestFailure`` when nothing listens within `timeout`.
    public static func wait(for path: String, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        while !isListening(path) {
            guard ContinuousClock.now < deadline else {
                let name = String(path.split(separator: "/").last ?? "")
                let table = socketTable()
                let entries = table.split(separator: "\n").filter { $0.hasSuffix(name) }
                throw TestFailure(
                    "nothing listens on \(path) (file exists: \(FileManager.default.fileExists(atPath: path)); "
                        + "/proc/net/unix entries ending in \(name): \(entries))")
            }
            usleep(10_000)
        }
    }

    /// Whether a Unix socket bound to `path` takes connections, as `/proc/net/unix` says: a stream or sequenced
    /// socket once it listens (flag `__SO_ACCEPTCON`), a datagram socket once it is bound.
    public static func isListening(_ path: String) -> Bool {
        let table = socketTable()
        // The table holds the path as the binder passed it: systemd-socket-activate simplifies `//` to `/`.
        let names: Set<Substring> = [Substring(path), Substring(simplified(path))]
        return table.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, names.contains(fields[7]) else { return false }
            return fields[3] == "00010000" || fields[4] == "0002"
        }
    }

    /// The path with runs of `/` made one.
    static func simplified(_ path: String) -> String {
        var result = ""
        for character in path where !(character == "/" && result.hasSuffix("/")) { result.append(character) }
        return result
    }

    /// `/proc/net/unix`, read to its end: a file of `/proc` reports no size, and with a thousand sockets open it
    /// spans many reads.
    static func socketTable() -> String {
        guard let handle = FileHandle(forReadingAtPath: "/proc/net/unix") else { return "" }
        defer { try? handle.close() }
        return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
    }
}
