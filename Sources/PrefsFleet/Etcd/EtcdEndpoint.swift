// SPDX-License-Identifier: Apache-2.0
/// One etcd member's client URL, as `http://host:port`, `https://host:port` (TLS, docs/FLEET.md, "Transport") or
/// `host:port` (plain HTTP).
package struct EtcdEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The host name or IP address.
    package var host: String
    /// The TCP port.
    package var port: Int
    /// Whether the member is reached over TLS (`https://`).
    package var isSecure: Bool

    /// Parses an endpoint.
    /// - Parameter text: `http://127.0.0.1:2379`, `https://etcd1.example.com:2379`, `127.0.0.1:2379`,
    ///   `http://[::1]:2379`.
    /// - Throws: ``EtcdError`` with code `invalidArgument` naming the text and the problem.
    package init(_ text: String) throws(EtcdError) {
        var rest = Substring(text)
        isSecure = rest.hasPrefix("https://")
        if isSecure {
            rest = rest.dropFirst("https://".count)
        } else if rest.hasPrefix("http://") {
            rest = rest.dropFirst("http://".count)
        }
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

    /// `http://host:port` or `https://host:port`.
    package var description: String {
        let scheme = isSecure ? "https" : "http"
        return host.contains(":") ? "\(scheme)://[\(host)]:\(port)" : "\(scheme)://\(host):\(port)"
    }
}
