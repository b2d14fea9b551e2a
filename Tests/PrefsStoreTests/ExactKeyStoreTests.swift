// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

@testable import PrefsStore

/// Two keys that differ only in Unicode normalization are two settings, in memory, in pending writes, on disk and
/// in events.
@Suite struct ExactKeyStoreTests {
    let app = user("com.example.App")
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test func setKeepsBothKeysThroughAWriteAndAReload() throws {
        let fixture = try StoreFixture()
        do {
            let store = fixture.makeStore()
            try store.set(1, forKey: Self.composed, in: app)
            try store.set(2, forKey: Self.decomposed, in: app)
            #expect(store.value(forKey: Self.composed, in: app) == 1)
            #expect(store.value(forKey: Self.decomposed, in: app) == 2)
            try store.synchronize()
        }
        let onDisk = try readDictionary(try fixture.path(app))
        #expect(onDisk.count == 2)
        #expect(onDisk[Self.composed] == 1)
        #expect(onDisk[Self.decomposed] == 2)
        let reopened = fixture.makeStore()
        #expect(try reopened.persistentDomain(app)?.count == 2)
        #expect(reopened.value(forKey: Self.decomposed, in: app) == 2)
    }

    @Test func setManyAndKeyUpdatesKeepBothKeys() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        try store.setMany([PlistKey(Self.composed): 1, PlistKey(Self.decomposed): 2], in: app)
        try store.update(forKey: Self.decomposed, in: app) { old in
            guard case .integer(let count)? = old, let count = count.int64Value else { return nil }
            return .integer(PlistInteger(count + 10))
        }
        try store.synchronize()
        let onDisk = try readDictionary(try fixture.path(app))
        #expect(onDisk == PlistDictionary([PlistKey(Self.composed): 1, PlistKey(Self.decomposed): 12]))
    }

    @Test func removingOneFormLeavesTheOther() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        try store.set(1, forKey: Self.composed, in: app)
        try store.set(2, forKey: Self.decomposed, in: app)
        try store.set(nil, forKey: Self.composed, in: app)
        try store.synchronize()
        #expect(try readDictionary(try fixture.path(app)) == PlistDictionary([PlistKey(Self.decomposed): 2]))
    }

    @Test func aValueChangedOnlyInNormalizationIsWritten() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore()
        try store.set(.string(Self.composed), forKey: "name", in: app)
        try store.synchronize()
        try store.set(.string(Self.decomposed), forKey: "name", in: app)
        try store.synchronize()
        let onDisk = try readDictionary(try fixture.path(app))
        #expect(onDisk["name"].flatMap(\.stringValue).map { Array($0.utf8) } == Array(Self.decomposed.utf8))
    }
}
