import Foundation

/// Waiting for a Unix socket that another process binds, such as `systemd-socket-activate`'s.
public enum ListeningSocket {
    /// Waits until something listens on `path`, without connecting (a connection would start an activated
    /// service): the file appears at `bind`, a moment before `listen`, and a connection in between is refused.
    /// - Throws: ``TestFailure`` when nothing listens within `timeout`.
    public static func wait(for path: String, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        while !isListening(path) {
            guard ContinuousClock.now < deadline else { throw TestFailure("nothing listens on \(path)") }
            usleep(10_000)
        }
    }

    /// Whether a Unix socket bound to `path` takes connections, as `/proc/net/unix` says: a stream or sequenced
    /// socket once it listens (flag `__SO_ACCEPTCON`), a datagram socket once it is bound.
    public static func isListening(_ path: String) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8) else { return false }
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
}
