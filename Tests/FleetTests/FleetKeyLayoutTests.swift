// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
import PrefsFleet
import PrefsStore
import Testing

@Suite struct FleetKeyLayoutTests {
    let layout = try! FleetKeyLayout(prefix: "/acme/prefs")

    @Test func keysRoundTrip() throws {
        let domain = try DomainName("com.example.App")
        let machine = String(repeating: "ab", count: 16)
        for target in [FleetTarget.all, .group("lab-1"), .host(machine)] {
            for kind in FleetKind.allCases {
                let key = layout.key(target: target, kind: kind, domain: domain)
                #expect(key.hasPrefix("/acme/prefs/managed/"))
                let parsed = try layout.parse(key)
                #expect(parsed.target == target && parsed.kind == kind && parsed.domain == domain)
            }
        }
        #expect(
            layout.key(target: .group("lab"), kind: .forced, domain: .global)
                == "/acme/prefs/managed/group/lab/forced/NSGlobalDomain")
    }

    @Test(arguments: [
        "/acme/prefs/managed/all/forced/..", "/acme/prefs/managed/all/forced/a/b", "/acme/prefs/managed/all/other/x",
        "/acme/prefs/managed/group/.hidden/forced/x", "/acme/prefs/managed/host/XYZ/forced/x",
        "/acme/prefs/managed/everyone/forced/x", "/acme/prefs/managed/all/forced/", "/elsewhere/managed/all/forced/x",
        "/acme/prefs/managed/all/forced/.GlobalPreferences",
    ])
    func badKeysAreRefusedWithAReason(key: String) {
        #expect(throws: EtcdError.self) { try layout.parse(key) }
    }

    @Test func prefixMustBeAbsolute() {
        #expect(throws: EtcdError.self) { try FleetKeyLayout(prefix: "relative/") }
        #expect((try? FleetKeyLayout(prefix: "/p"))?.prefix == "/p/")
    }

    @Test func endpointsParse() throws {
        #expect(try EtcdEndpoint("http://127.0.0.1:2379").description == "http://127.0.0.1:2379")
        #expect(try EtcdEndpoint("localhost:23790").port == 23790)
        #expect(try EtcdEndpoint("http://[::1]:2379").host == "::1")
        let secure = try EtcdEndpoint("https://etcd1.example.com:2379/")
        #expect(secure.isSecure && secure.host == "etcd1.example.com" && secure.port == 2379)
        #expect(secure.description == "https://etcd1.example.com:2379")
        #expect(try EtcdEndpoint("https://[::1]:2379").description == "https://[::1]:2379")
        #expect(try !EtcdEndpoint("127.0.0.1:2379").isSecure)
        for bad in ["https://http://h:1", "ftp://h:1", "h", "h:0", "h:99999", "http://:80", "http://[::1"] {
            #expect(throws: EtcdError.self) { try EtcdEndpoint(bad) }
        }
    }
}
