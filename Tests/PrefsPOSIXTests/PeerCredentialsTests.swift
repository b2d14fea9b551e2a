// SPDX-License-Identifier: Apache-2.0
import Glibc
import PrefsPOSIX
import Testing

@Suite("SO_PEERCRED")
struct PeerCredentialsTests {
    @Test("the peer of a connected Unix socket is this process, with its uid and gid")
    func connectedPeer() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { pair.forEach { close($0) } }
        let credentials = try POSIX.peerCredentials(of: pair[0])
        #expect(credentials == PeerCredentials(processID: getpid(), userID: getuid(), groupID: getgid()))
    }

    @Test("a descriptor that is not a socket is refused, naming the call")
    func notASocket() {
        var pipeEnds: [Int32] = [-1, -1]
        #expect(pipe(&pipeEnds) == 0)
        defer { pipeEnds.forEach { close($0) } }
        #expect {
            try POSIX.peerCredentials(of: pipeEnds[0])
        } throws: { error in
            "\(error)".contains("getsockopt SO_PEERCRED")
        }
    }
}
