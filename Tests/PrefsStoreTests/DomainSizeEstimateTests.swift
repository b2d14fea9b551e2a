// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsStore
import Testing

/// `set` refuses a value that would take a domain past `maxDomainBytes` from an estimate of the XML file's size,
/// without encoding the domain: the estimate must count text as XML writes it (escaped, in UTF-8).
@Suite("domain size estimate")
struct DomainSizeEstimateTests {
    let app = user("com.example.App")
    static let limits = StoreLimits(maxKeyBytes: 64, maxDomainBytes: 3000, maxDepth: 8)

    @Test(arguments: [
        ("x", true), ("é", true),  // 700 and 1,400 bytes
        ("&", false), ("<", false), (">", false),  // escaped: 3,500, 2,800 and 2,800 bytes, plus the file's frame
    ])
    func textIsCountedAsTheFileHoldsIt(character: String, fits: Bool) throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore(limits: Self.limits)
        let text = String(repeating: character, count: 700)
        if fits {
            try store.set(.string(text), forKey: "text", in: app)
            try store.synchronize()
            #expect(try readBytes(try fixture.path(app)).count <= Self.limits.maxDomainBytes)
        } else {
            let error = #expect(throws: PrefsStoreError.self) { try store.set(.string(text), forKey: "text", in: app) }
            #expect(error?.message.contains("maxDomainBytes = 3000") == true)
        }
    }

    @Test func escapedKeysCountToo() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore(limits: StoreLimits(maxKeyBytes: 1000, maxDomainBytes: 3000, maxDepth: 8))
        try store.set(true, forKey: String(repeating: "k", count: 600), in: app)
        #expect(throws: PrefsStoreError.self) {
            try store.set(true, forKey: String(repeating: "&", count: 600), in: app)
        }
    }

    /// Replacing a value counts the difference between the old and the new value's sizes.
    @Test func replacingAValueCountsTheDifference() throws {
        let fixture = try StoreFixture()
        let store = fixture.makeStore(limits: Self.limits)
        try store.set(.string(String(repeating: "x", count: 2000)), forKey: "text", in: app)
        try store.set(.string(String(repeating: "y", count: 2000)), forKey: "text", in: app)
        #expect(throws: PrefsStoreError.self) {
            try store.set(.string(String(repeating: "&", count: 2000)), forKey: "text", in: app)
        }
        #expect(store.value(forKey: "text", in: app) == .string(String(repeating: "y", count: 2000)))
    }
}
