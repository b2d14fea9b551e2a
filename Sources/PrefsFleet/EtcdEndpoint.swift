/// One etcd member's client URL, as `http://host:port` (or `host:port`).
///
/// Only plain HTTP is accepted for now: an `https://` URL is refused with a message saying TLS is not built in yet
/// (docs/FLEET.md, "Transport").
package struct EtcdEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The host name or IP address.
    package var host: String
    /// The TCP port.
    package var port: Int

    /// Parses an endpoint.
    /// - Parameter text: `http://127.0.0.1:2379`, `127.0.0.1:2379`, `http://[::1]:2379`.
    /// - Throws: ``EtcdError`` with code `invalidArgument` naming the text and the problem.
    package init(_ text: String) throws(EtcdError) {
        var rest = Substring(text)
        if rest.hasPrefix("https://") {
            throw EtcdError(
                .invalidArgument,
                "etcd endpoint \(text): TLS (https) is not supported yet; use http:// on a trusted network")
        }
        if rest.hasPrefix("http://") { rest = rest.dropFirst("http://".count) }
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        let hostPart: Substring
        let portPart: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw EtcdError(.invalidArgument, "etcd endpoint \(text): unclosed [ in the IPv6 address")
            }
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            guard after.hasPrefix(":") else {
                throw EtcdError(.invalidArgument, "etcd endpoint \(text): needs a port, as http://[::1]:2379")
            }
            portPart = after.dropFirst()
        } else {
            guard let colon = rest.lastIndex(of: ":") else {
                throw EtcdError(.invalidArgument, "etcd endpoint \(text): needs a port, as http://127.0.0.1:2379")
            }
            hostPart = rest[..<colon]
            portPart = rest[rest.index(after: colon)...]
        }
        guard !hostPart.isEmpty, !hostPart.contains("/"), !hostPart.contains(" ") else {
            throw EtcdError(.invalidArgument, "etcd endpoint \(text): the host is missing or malformed")
        }
        guard let port = Int(portPart), (1...65535).contains(port) else {
            throw EtcdError(.invalidArgument, "etcd endpoint \(text): the port must be a number from 1 to 65535")
        }
        self.host = String(hostPart)
        self.port = port
    }

    /// `http://host:port`.
    package var description: String {
        host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    }
}
