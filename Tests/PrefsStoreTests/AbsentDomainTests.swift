// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

@testable import PrefsStore

/// Reads of domains that exist nowhere: they answer "empty, version 0" and leave nothing loaded, so that a client
/// naming ever new domains cannot grow the store.
@Suite struct AbsentDomainTests {
    @Test("reading 10,000 domains that have no file loads none of them")
    func readsOfAbsentDomainsLoadNothing() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        let search = SearchList(domain: name("com.example.app"), suites: [name("com.example.suite")])
        for index in 0..<10_000 {
            let domain = user("com.example.absent\(index)")
            #expect(store.value(forKey: "k", in: domain) == nil)
            #expect(store.snapshot(of: domain) == StoreSnapshot(values: [:], sequence: 0))
            #expect(try store.persistentDomain(domain) == nil)
            #expect(store.domainIssue(domain) == nil)
            try store.synchronize(domain)
        }
        #expect(store.resolve("k", in: search).winner == nil)
        #expect(store.loadedDomainCount == 0)
    }

    @Test("a domain with a file is loaded by a read, and one written here stays loaded after its file is removed")
    func presentDomainsAreLoaded() throws {
        let fixture = try StoreFixture()
        try fixture.install(["k": 1], as: user("com.example.present"))
        let store = fixture.makeStore()
        #expect(store.value(forKey: "k", in: user("com.example.present")) == 1)
        #expect(store.loadedDomainCount == 1)
        try store.set(2, forKey: "k", in: user("com.example.written"))
        #expect(store.value(forKey: "k", in: user("com.example.written")) == 2)
        #expect(store.loadedDomainCount == 2)
    }

    @Test("version 0 read from a domain without a file does not match the domain once another process writes it")
    func versionZeroDoesNotStandForAFile() throws {
        let fixture = try StoreFixture()
        let domain = user("com.example.race")
        let reader = fixture.makeStore(watchesFiles: false)
        let version = reader.snapshot(of: domain).sequence
        #expect(version == 0)
        // Another process writes the domain before the reader's compare-and-set.
        let other = fixture.makeStore(watchesFiles: false)
        try other.set("theirs", forKey: "k", in: domain)
        try other.synchronize()
        #expect(throws: PrefsStoreError.self) {
            try reader.set("mine", forKey: "k", in: domain, expectedSequence: version)
        }
        #expect(reader.value(forKey: "k", in: domain) == "theirs")
    }

    @Test("a domain whose file cannot be checked is loaded to report why")
    func uncheckableFileIsLoaded() throws {
        let fixture = try StoreFixture()
        // The Preferences directory is a symbolic link to itself: the domain's file cannot be checked (ELOOP).
        try FileManager.default.createDirectory(atPath: fixture.directory.path, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: fixture.directory.file("prefs"), withDestinationPath: fixture.directory.file("prefs"))
        let store = fixture.makeStore(watchesFiles: false)
        #expect(store.value(forKey: "k", in: user("com.example.blocked")) == nil)
        #expect(store.domainIssue(user("com.example.blocked")) != nil)
        #expect(store.loadedDomainCount == 1)
    }
}
