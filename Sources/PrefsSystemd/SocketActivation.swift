// SPDX-License-Identifier: Apache-2.0
/// The listening sockets systemd passed to a socket-activated daemon (`sd_listen_fds(3)`).
///
/// With `prefsd.socket` systemd creates and binds the socket itself, starts `prefsd.service` on the first
/// connection, and hands the listening socket over as descriptor 3 (`LISTEN_FDS`, `LISTEN_PID`, `LISTEN_FDNAMES`).
/// The daemon serves it with NIO's `ServerBootstrap.withBoundSocket(_:)` instead of binding a path of its own, so
/// a client that connected before the daemon ran is not lost.
///
/// Reading the descriptors removes the activation variables from the environment (so a child process cannot
/// claim them): ask once, at start-up.
public enum SocketActivation {
    /// One listening socket passed by systemd.
    public struct ListeningSocket: Sendable, Hashable, CustomStringConvertible {
        /// The descriptor, ready for `ServerBootstrap.withBoundSocket(_:)`; close-on-exec is already set.
        public let descriptor: Int32
        /// The socket's name from the unit's `FileDescriptorName=` (by default the socket unit's name, such as
        /// `prefsd.socket`), or `"unknown"` when the activator gave none.
        public let name: String
        /// The address the socket is bound to: a file-system path, `@name` in the abstract namespace, or `nil`
        /// when unnamed.
        public let path: String?

        /// Creates a description of a passed socket.
        public init(descriptor: Int32, name: String, path: String?) {
            self.descriptor = descriptor
            self.name = name
            self.path = path
        }

        /// `descriptor 3 (prefsd) at /run/user/1000/prefsd/socket`.
        public var description: String { "descriptor \(descriptor) (\(name)) at \(path ?? "an unnamed address")" }
    }

    /// Every socket systemd passed, in order, each checked to be a listening `AF_UNIX` stream socket.
    ///
    /// - Returns: An empty array when the process was not socket-activated (`LISTEN_FDS` unset, or `LISTEN_PID`
    ///   naming another process); the daemon then binds its default socket itself.
    /// - Throws: ``PrefsSystemdError/Code/activationFailed`` when the activation variables are malformed,
    ///   ``PrefsSystemdError/Code/unsupportedSocket`` when a descriptor is anything but a listening Unix stream
    ///   socket (a `ListenDatagram=` or `ListenStream=` TCP port in the socket unit, say).
    public static func listeningSockets() throws(PrefsSystemdError) -> [ListeningSocket] {
        let passed: [(descriptor: Int32, name: String)]
        do {
            passed = try Systemd.listenDescriptors()
        } catch {
            throw PrefsSystemdError(
                .activationFailed, "cannot read the sockets passed by systemd (LISTEN_FDS, LISTEN_PID)", cause: error)
        }
        return try passed.map { item throws(PrefsSystemdError) in try validate(item.descriptor, name: item.name) }
    }

    /// The one listening socket systemd passed, or `nil` when the process was not socket-activated.
    ///
    /// - Throws: What ``listeningSockets()`` throws, and ``PrefsSystemdError/Code/unexpectedSocketCount`` when
    ///   systemd passed more than one socket (the socket unit has several `Listen…=` lines).
    public static func listeningSocket() throws(PrefsSystemdError) -> ListeningSocket? {
        let sockets = try listeningSockets()
        guard sockets.count <= 1 else {
            let list = sockets.map(\.description).joined(separator: ", ")
            throw PrefsSystemdError(
                .unexpectedSocketCount, "systemd passed \(sockets.count) sockets, expected one: \(list)")
        }
        return sockets.first
    }

    /// Checks that `descriptor` is a listening `AF_UNIX` stream socket and describes it.
    static func validate(_ descriptor: Int32, name: String) throws(PrefsSystemdError) -> ListeningSocket {
        let isListening: Bool
        do {
            isListening = try Systemd.isListeningUnixStreamSocket(descriptor)
        } catch {
            throw PrefsSystemdError(
                .unsupportedSocket, "passed descriptor \(descriptor) (\(name)) cannot be inspected", cause: error)
        }
        guard isListening else {
            throw PrefsSystemdError(
                .unsupportedSocket,
                "passed descriptor \(descriptor) (\(name)) is not a listening AF_UNIX stream socket; "
                    + "the socket unit must use ListenStream= with a path")
        }
        let path: String?
        do {
            path = try Systemd.unixSocketAddress(descriptor)
        } catch {
            throw PrefsSystemdError(
                .unsupportedSocket, "cannot read the address of passed descriptor \(descriptor) (\(name))",
                cause: error)
        }
        return ListeningSocket(descriptor: descriptor, name: name, path: path)
    }
}
