// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import Testing

/// The example on the landing page of PrefsStore's documentation (Sources/PrefsStore/PrefsStore.docc), run as
/// written but on a temporary directory instead of the environment's.
@Suite struct DocumentationExampleTests {
    @Test("the landing page's example sets, updates, synchronizes, reads a view and explains a key")
    func landingPageExample() throws {
        let directory = try TemporaryDirectory()
        let paths = StorePaths(
            preferencesDirectory: directory.file("prefs"), systemDirectory: nil, shippedDirectory: nil, machineID: nil)
        let store = PreferencesStore(paths: paths)
        let app = DomainID(try DomainName("com.example.Editor"))

        try store.set(.string("dark"), forKey: "Theme", in: app)
        try store.update(forKey: "Recent", in: app) { .array(($0?.arrayValue ?? []) + ["x"]) }
        try store.synchronize()

        let list = SearchList(domain: app.name, suites: [])
        let view = store.effectiveView(for: list)
        let theme = view.value(forKey: "Theme")
        let explanation = store.resolve("Theme", in: list)

        #expect(theme == .string("dark"))
        #expect(store.value(forKey: "Recent", in: app) == .array(["x"]))
        #expect(explanation.winner?.path == directory.file("prefs/com.example.Editor.plist"))
        let file = try PlistSerialization.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("prefs/com.example.Editor.plist")))))
        #expect(file == ["Theme": "dark", "Recent": ["x"]])
    }
}
