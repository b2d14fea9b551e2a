// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsAccess
import PrefsClient
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import PrefsWire
import Synchronization
import Testing

/// The access layer on the files: atomic updates across threads and across stores (each store is what a process
/// has), with the store's real locks and files in a temporary directory.
@Suite struct StoreAccessTests {
    static let domain = DomainID(try! DomainName("com.example.Race"))

    static func paths(_ directory: TemporaryDirectory) -> StorePaths {
        StorePaths(
            preferencesDirectory: directory.file("prefs"), systemDirectory: nil, shippedDirectory: nil,
            machineID: "00112233445566778899aabbccddeeff")
    }

    static func access(_ directory: TemporaryDirectory) -> StoreAccess {
        StoreAccess(
            paths: paths(directory),
            configuration: StoreConfiguration(watchesFiles: false, flushesAtExit: false, diagnostics: { _ in }))
    }

    static func storedValues(_ directory: TemporaryDirectory) throws -> PlistDictionary? {
        guard let data = FileManager.default.contents(atPath: directory.file("prefs/com.example.Race.plist")) else {
            return nil
        }
        return try PlistSerialization.decode(Array(data)).dictionaryValue
    }

    @Test("increments from 8 threads, each through a store of its own, all count", arguments: [false, true])
    func incrementsFromManyStoresAllCount(sharingOneStore: Bool) throws {
        let directory = try TemporaryDirectory()
        let shared = Self.access(directory)
        let threads = 8
        let increments = 100
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            let access = sharingOneStore ? shared : Self.access(directory)
            for _ in 0..<increments {
                _ = try! access.update(key: "Count", in: Self.domain) { value in
                    guard case .integer(let count)? = value else { return 1 }
                    return .integer(PlistInteger(count.int64Value! + 1))
                }
            }
            // Each store's updates reach the file at its write, replayed on what the file holds then.
            try! access.synchronize()
        }
        #expect(try Self.storedValues(directory)?["Count"] == .integer(PlistInteger(Int64(threads * increments))))
        #expect(try Self.access(directory).values(of: Self.domain)?["Count"] == 800)
    }

    @Test("a domain update sees the domain as it is now and keeps other writers' keys")
    func aDomainUpdateKeepsOtherWritersKeys() throws {
        let directory = try TemporaryDirectory()
        let first = Self.access(directory)
        let second = Self.access(directory)
        try first.setValues(["List": ["a"]], in: Self.domain)
        try first.synchronize()
        // The second store read the domain before the first one wrote again: its update must start from the file.
        _ = try second.values(of: Self.domain)
        _ = try first.update(Self.domain) { values in values["List"] = ["a", "b"] }
        let (outcome, _) = try second.update(Self.domain) { values -> Int in
            values["List"] = .array((values["List"]?.arrayValue ?? []) + ["c"])
            values["Other"] = true
            return values.count
        }
        #expect(outcome == 2)
        #expect(try Self.storedValues(directory) == ["List": ["a", "b", "c"], "Other": true])
    }

    @Test("a key update is replayed at the write on what another process wrote meanwhile, and reads follow")
    func aKeyUpdateIsReplayedOnTheFile() throws {
        let directory = try TemporaryDirectory()
        let first = Self.access(directory)
        let second = Self.access(directory)
        let append: @Sendable (String) -> @Sendable (PlistValue?) -> PlistValue? = { item in
            { stored in .array((stored?.arrayValue ?? []) + [.string(item)]) }
        }
        #expect(try first.update(key: "List", in: Self.domain, append("a")).value == ["a"])
        #expect(try second.update(key: "List", in: Self.domain, append("b")).value == ["b"])
        try second.synchronize()
        #expect(try Self.storedValues(directory) == ["List": ["b"]])
        try first.synchronize()
        #expect(try Self.storedValues(directory) == ["List": ["b", "a"]])
        #expect(try first.values(of: Self.domain) == ["List": ["b", "a"]])
        // A set replaces what came before it; an update after it builds on the set value.
        try first.setValue(["x"], forKey: "List", in: Self.domain)
        _ = try first.update(key: "List", in: Self.domain, append("y"))
        try first.synchronize()
        #expect(try Self.storedValues(directory) == ["List": ["x", "y"]])
    }

    @Test("an update that changes nothing writes nothing")
    func anUnchangedUpdateWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let access = Self.access(directory)
        let (outcome, version) = try access.update(Self.domain) { values in values.isEmpty }
        #expect(outcome)
        #expect(version == 0)
        #expect(!FileManager.default.fileExists(atPath: directory.file("prefs/com.example.Race.plist")))
    }

    @Test("another writer that wins every attempt exhausts the update with versionConflict, and nothing changes")
    func aLostRaceOnEveryAttemptIsAConflict() throws {
        let directory = try TemporaryDirectory()
        let access = Self.access(directory)
        let rival = Self.access(directory)
        var attempts = 0
        do throws(PrefsAccessError) {
            // The body is not pure on purpose: each attempt lets a rival process commit first.
            _ = try access.update(Self.domain, maxAttempts: 3) { values in
                attempts += 1
                let round = Int64(attempts)
                _ = try? rival.update(Self.domain) { $0["Rival"] = .integer(PlistInteger(round)) }
                values["Count"] = 1
            }
            Issue.record("the update committed although the domain changed under every attempt")
        } catch {
            #expect(error.code == .versionConflict)
            #expect(error.message.contains("3 attempts"))
        }
        #expect(attempts == 3)
        #expect(try Self.storedValues(directory) == ["Rival": 3])
    }

    @Test("a read-only layer is refused before any attempt")
    func aReadOnlyLayerIsRefused() throws {
        let directory = try TemporaryDirectory()
        let access = Self.access(directory)
        let forced = DomainID(Self.domain.name, scope: .forced)
        #expect(throws: PrefsAccessError.self) {
            try access.update(key: "K", in: forced) { _ in 1 }
        }
    }

    @Test("the route: no daemon means the files for automatic, an error for always, the files for never")
    func theRouteFollowsThePolicy() throws {
        let directory = try TemporaryDirectory()
        let configuration = StoreConfiguration(watchesFiles: false, flushesAtExit: false, diagnostics: { _ in })
        let socket = directory.file("no-daemon.socket")
        let automatic = try AccessRoute.open(
            paths: Self.paths(directory), policy: .automatic, socketPath: socket, clientName: "test",
            files: configuration)
        #expect(automatic.route == .files(directory: directory.file("prefs")))
        let never = try AccessRoute.open(
            paths: Self.paths(directory), policy: .never, socketPath: socket, clientName: "test", files: configuration)
        #expect(never.route == .files(directory: directory.file("prefs")))
        do {
            _ = try AccessRoute.open(
                paths: Self.paths(directory), policy: .always, socketPath: socket, clientName: "test",
                files: configuration)
            Issue.record("opening prefsd that does not run succeeded")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.message.contains(socket))
        }
    }

    @Test(
        "PREFERENCES_DAEMON has one meaning",
        arguments: [
            ("on", DaemonPolicy.always), ("YES", .always), ("1", .always), ("true", .always), ("off", .never),
            ("no", .never), ("0", .never), ("False", .never),
        ])
    func theVariableHasOneMeaning(text: String, policy: DaemonPolicy) {
        #expect(DaemonPolicy(variable: text) == policy)
    }

    @Test("auto, empty and unknown values of PREFERENCES_DAEMON leave the choice to the program")
    func otherValuesChooseNothing() {
        for text in ["auto", "", "maybe"] { #expect(DaemonPolicy(variable: text) == nil) }
    }

    @Test("errors map once: the store's code and message, the daemon's refusal, a lost answer")
    func errorsMapOnce() {
        let store = PrefsAccessError(PrefsStoreError(.readOnlyDomain, "domain d is read-only", path: "/p"))
        #expect(store.code == .readOnly)
        #expect(store.path == "/p")
        let refused = PrefsAccessError(
            PrefsClientError(
                .refused, "prefsd refused", serverError: WireError(.versionConflict, "domain d is at version 3")))
        #expect(refused.code == .versionConflict)
        #expect(refused.message == "domain d is at version 3")
        let lost = PrefsAccessError(PrefsClientError(.outcomeUnknown, "prefsd closed the connection"))
        #expect(lost.code == .outcomeUnknown)
        let absent = PrefsAccessError(PrefsClientError(.daemonUnavailable, "prefsd does not answer on /s"))
        #expect(absent.code == .unavailable)
        #expect(absent.message == "prefsd does not answer on /s")
    }
}
