// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The credentials of a Unix socket's peer as the kernel recorded them when it connected (`SO_PEERCRED`): what prefsd
/// decides whom it serves by, and what a client tells a stopped daemon from a busy one by.
package struct PeerCredentials: Sendable, Hashable {
    /// The peer's process id; 0 when the peer is in another pid namespace.
    package var processID: Int32
    /// The peer's user id.
    package var userID: UInt32
    /// The peer's group id.
    package var groupID: UInt32

    /// Credentials from their fields.
    package init(processID: Int32, userID: UInt32, groupID: UInt32) {
        self.processID = processID
        self.userID = userID
        self.groupID = groupID
    }

    /// `struct ucred` of `<sys/socket.h>`, which Glibc's module map hides (it needs `_GNU_SOURCE`): three 32-bit
    /// fields, pid, uid, gid. The layout `getsockopt` fills, and SwiftNIO's socket options read.
    package struct Kernel: Sendable {
        package var pid: Int32 = 0
        package var uid: UInt32 = 0
        package var gid: UInt32 = 0

        /// Zeroed, for the kernel to fill.
        package init() {}
    }

    /// The credentials a `struct ucred` holds.
    package init(_ kernel: Kernel) {
        self.init(processID: kernel.pid, userID: kernel.uid, groupID: kernel.gid)
    }

    /// `SO_PEERCRED` (17 on every Linux architecture but a few legacy ones this project does not target).
    package static let socketOption: Int32 = 17
}

extension POSIX {
    /// The credentials of the peer of a connected Unix socket.
    /// - Parameter descriptor: The socket.
    /// - Throws: ``SystemCallError`` naming `getsockopt SO_PEERCRED` (not a socket, not connected).
    package static func peerCredentials(of descriptor: Int32) throws(SystemCallError) -> PeerCredentials {
        var kernel = PeerCredentials.Kernel()
        var length = socklen_t(MemoryLayout<PeerCredentials.Kernel>.size)
        let (status, code) = retrying {
            getsockopt(descriptor, SOL_SOCKET, PeerCredentials.socketOption, &kernel, &length)
        }
        if status != 0 { throw SystemCallError("getsockopt SO_PEERCRED", errno: code) }
        return PeerCredentials(kernel)
    }
}
