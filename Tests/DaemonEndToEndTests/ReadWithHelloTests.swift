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
        try reader.connect(reading: domain)
        try writer.setValue("two", forKey: "Key", in: domain)
        // The read went out with hello, before the second write.
        #expect(try reader.values(of: domain) == ["Key": "one"])
        #expect(try reader.values(of: domain) == ["Key": "two"])

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
        try reader.connect(reading: absent)
        #expect(try reader.values(of: absent) == nil)
        // A read of another domain first leaves the answer unused, and asks prefsd.
        let second = DaemonAccess(socketPath: home.socketPath, clientName: "second")
        try second.connect(reading: absent)
        try second.setValue(1, forKey: "Key", in: other)
        #expect(try second.values(of: other) == ["Key": 1])
        #expect(try second.values(of: absent) == nil)

        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }
}
