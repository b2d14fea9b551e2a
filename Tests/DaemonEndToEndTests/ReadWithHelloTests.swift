// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A one-shot command reads its domain with `hello` (``DaemonAccess/connect(reading:)``): the answer serves the
/// first read of that domain only; later reads ask prefsd again.
@Suite("a read sent with hello", .serialized)
struct ReadWithHelloTests {
    @Test("serves the first read of its domain, and later reads see later changes")
    func firstReadThenFresh() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let domain = DomainID(try DomainName("com.example.Hello"))
        let writer = DaemonAccess(socketPath: home.socketPath, clientName: "writer")
        try writer.setValue("one", forKey: "Key", in: domain)

        let reader = DaemonAccess(socketPath: home.socketPath, clientName: "reader")
        try reader.connect(reading: FirstRead(domain))
        try writer.setValue("two", forKey: "Key", in: domain)
        // The read went out with hello, before the second write.
        #expect(try reader.values(of: domain) == ["Key": "one"])
        #expect(try reader.values(of: domain) == ["Key": "two"])

        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    /// `defaults read D k` asks for the key alone: the domain is not sent whole for one of its keys.
    @Test("of one key, serves the first read of that key; other keys and later reads ask again")
    func oneKey() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let domain = DomainID(try DomainName("com.example.Key"))
        let absent = DomainID(try DomainName("com.example.NoSuchDomain"))
        let writer = DaemonAccess(socketPath: home.socketPath, clientName: "writer")
        try writer.setValues(["Key": "one", "Other": 2], in: domain)

        let reader = DaemonAccess(socketPath: home.socketPath, clientName: "reader")
        try reader.connect(reading: FirstRead(domain, key: "Key"))
        try writer.setValue("two", forKey: "Key", in: domain)
        #expect(try reader.value(forKey: "Key", in: domain) == "one", "the read went out with hello")
        #expect(try reader.value(forKey: "Key", in: domain) == "two")
        #expect(try reader.value(forKey: "Other", in: domain) == 2)
        #expect(try reader.value(forKey: "Missing", in: domain) == nil)
        #expect(try reader.value(forKey: "Key", in: absent) == nil)

        // A prefetched key serves only a read of that very key.
        let second = DaemonAccess(socketPath: home.socketPath, clientName: "second")
        try second.connect(reading: FirstRead(domain, key: "Other"))
        try writer.setValue("three", forKey: "Key", in: domain)
        #expect(try second.value(forKey: "Key", in: domain) == "three")
        #expect(try second.values(of: domain) == ["Key": "three", "Other": 2])

        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    @Test("of a domain that does not exist, reads as no domain")
    func absentDomain() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let absent = DomainID(try DomainName("com.example.Absent"))
        let other = DomainID(try DomainName("com.example.Other"))

        let reader = DaemonAccess(socketPath: home.socketPath, clientName: "reader")
        try reader.connect(reading: FirstRead(absent))
        #expect(try reader.values(of: absent) == nil)
        // A read of another domain first leaves the answer unused, and asks prefsd.
        let second = DaemonAccess(socketPath: home.socketPath, clientName: "second")
        try second.connect(reading: FirstRead(absent))
        try second.setValue(1, forKey: "Key", in: other)
        #expect(try second.values(of: other) == ["Key": 1])
        #expect(try second.values(of: absent) == nil)

        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }
}
