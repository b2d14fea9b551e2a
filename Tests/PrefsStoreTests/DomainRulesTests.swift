// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

@testable import PrefsStore

/// The rules of prefsd's settings domain, checked by the store on every kind of write: a refused value changes
/// nothing, a good one is stored, and other domains may hold anything under the same keys.
@Suite struct DomainRulesTests {
    static let prefsd = user("prefsd")

    @Test("a setting out of its range is refused by every kind of write, and nothing changes")
    func everyWriteIsChecked() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        try store.set(10, forKey: "MaxConnections", in: Self.prefsd)
        let writes: [(String, () throws(PrefsStoreError) -> Void)] = [
            ("set", { () throws(PrefsStoreError) in try store.set(0, forKey: "MaxConnections", in: Self.prefsd) }),
            (
                "setMany",
                { () throws(PrefsStoreError) in
                    _ = try store.setMany(["LogLevel": "debug", "MaxConnections": 0], in: Self.prefsd)
                }
            ),
            (
                "setPersistentDomain",
                { () throws(PrefsStoreError) in
                    _ = try store.setPersistentDomain(["MaxConnections": "many"], for: Self.prefsd)
                }
            ),
            (
                "update",
                { () throws(PrefsStoreError) in
                    _ = try store.update(Self.prefsd) { values in values["FlushDelay"] = .real(-1) }
                }
            ),
        ]
        for (name, write) in writes {
            do {
                try write()
                Issue.record("\(name) of a bad setting succeeded")
            } catch {
                #expect(error.code == .invalidValue, "\(name)")
                #expect(error.message.hasPrefix("setting "), "\(name): \(error.message)")
                #expect(error.message.hasSuffix("; nothing was changed"), "\(name)")
            }
        }
        #expect(try store.persistentDomain(Self.prefsd) == ["MaxConnections": 10])

        try store.set("debug", forKey: "LogLevel", in: Self.prefsd)
        try store.set(0, forKey: "MaxConnections", in: user("com.example.other"))
        try store.set(.real(0.25), forKey: "FlushDelay", in: Self.prefsd)
        #expect(
            try store.persistentDomain(Self.prefsd) == ["MaxConnections": 10, "LogLevel": "debug", "FlushDelay": 0.25])
    }
}
