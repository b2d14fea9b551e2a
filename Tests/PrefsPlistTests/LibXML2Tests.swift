// SPDX-License-Identifier: Apache-2.0
import Testing

@testable import PrefsPlist

/// libxml2 reached through `dlopen` on first use.
@Suite("XML reader: loading libxml2")
struct LibXML2Tests {
    @Test func theSystemsLibXML2Loads() throws {
        _ = try LibXML2.shared()
        // A document the fast path leaves to libxml2 is read by it.
        let bytes =
            Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>caf".utf8) + [0xE9]
            + Array("</string></plist>".utf8)
        #expect(try bytes.withUnsafeBytes { try XMLPlistReader.read($0, limits: .default) } == "café")
    }

    @Test func aMissingLibraryIsAnErrorNamingItAndTheLoadersReason() {
        guard case .failure(let error) = LibXML2.load("libprefs-test-missing.so.2") else {
            Issue.record("a library that is not there loaded")
            return
        }
        #expect(error.message.hasPrefix("cannot load libprefs-test-missing.so.2"))
        #expect(error.message.contains("cannot open shared object file"), "\(error.message)")
        #expect(error.code != .malformed)
    }

    @Test func aLibraryWithoutTheFunctionsIsAnErrorNamingTheFunction() {
        guard case .failure(let error) = LibXML2.load("libc.so.6") else {
            Issue.record("the C library passed for libxml2")
            return
        }
        #expect(error.message.hasPrefix("libc.so.6 has no function xmlInitParser"), "\(error.message)")
    }
}
