// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import Testing

/// The example on the landing page of PrefsPlist's documentation (Sources/PrefsPlist/PrefsPlist.docc), run as
/// written.
@Suite struct DocumentationExampleTests {
    @Test("the landing page's example decodes with detection, encodes XML, and reads a key")
    func landingPageExample() throws {
        let bytes = Array("{ Theme = dark; Size = 12; }".utf8)

        let value = try PlistSerialization.decode(bytes)
        let xml = try PlistSerialization.encode(value, format: .xml)
        let theme = value["Theme"]?.stringValue

        #expect(theme == "dark")
        #expect(try PlistSerialization.decode(xml) == value)
        #expect(String(decoding: xml, as: UTF8.self).contains("<key>Theme</key>"))
    }
}
