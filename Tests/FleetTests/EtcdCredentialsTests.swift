// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsFleet
import PrefsTestSupport
import Testing

/// The password file prefsd's `FleetPasswordFile` and `defaults fleet`'s `PREFERENCES_FLEET_PASSWORD_FILE` name.
@Suite struct EtcdCredentialsTests {
    let directory = try! TemporaryDirectory(prefix: "etcd-credentials")

    func file(_ name: String, _ bytes: [UInt8], mode: Int = 0o600) throws -> String {
        let path = directory.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    @Test func oneLineIsThePassword() throws {
        #expect(try EtcdCredentials.readPassword(fromFile: file("a", Array("s3cret\n".utf8))) == "s3cret")
        #expect(try EtcdCredentials.readPassword(fromFile: file("b", Array("s3cret\r\n".utf8))) == "s3cret")
        #expect(try EtcdCredentials.readPassword(fromFile: file("c", Array(" with spaces ".utf8))) == " with spaces ")
        #expect(try EtcdCredentials.readPassword(fromFile: file("d", Array("x".utf8), mode: 0o400)) == "x")
        #expect("\(EtcdCredentials(user: "host1", password: "s3cret"))" == "etcd user host1")
    }

    @Test(
        arguments: [
            (Array("pw\n".utf8), 0o640, "is open to its group or to others (mode 640)"),
            (Array("pw\n".utf8), 0o604, "is open to its group or to others (mode 604)"),
            (Array("pw\n".utf8), 0o620, "is open to its group or to others (mode 620)"),
            (Array("\n".utf8), 0o600, "is empty"),
            (Array("two\nlines\n".utf8), 0o600, "must hold one line of UTF-8 text"),
            ([0xFF, 0xFE], 0o600, "must hold one line of UTF-8 text"),
            (Array(repeating: UInt8(ascii: "x"), count: 5000), 0o600, "is larger than 4096 bytes"),
        ] as [([UInt8], Int, String)])
    func badFilesAreRefusedWithTheirReason(bytes: [UInt8], mode: Int, reason: String) throws {
        let path = try file("bad", bytes, mode: mode)
        let error = try #require(throws: EtcdError.self) { try EtcdCredentials.readPassword(fromFile: path) }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains(path), "\(error.message)")
        #expect(error.message.contains(reason), "\(error.message)")
    }

    @Test func missingFilesAndDirectoriesAreRefused() throws {
        for path in [directory.file("absent"), directory.path] {
            let error = try #require(throws: EtcdError.self) { try EtcdCredentials.readPassword(fromFile: path) }
            #expect(error.message.hasPrefix("cannot read the etcd password file"), "\(error.message)")
            #expect(error.message.contains(path), "\(error.message)")
        }
    }

    @Test func authenticationMessagesHaveTheirCodes() {
        #expect(EtcdError.Code(authenticationMessage: "etcdserver: permission denied") == .permissionDenied)
        #expect(EtcdError.Code(authenticationMessage: "etcdserver: invalid auth token") == .unauthenticated)
        #expect(EtcdError.Code(authenticationMessage: "etcdserver: user name is empty") == .unauthenticated)
        #expect(
            EtcdError.Code(authenticationMessage: "etcdserver: authentication failed, invalid user ID or password")
                == .authenticationFailed)
        #expect(EtcdError.Code(authenticationMessage: "etcdserver: request is too large") == nil)
    }
}
