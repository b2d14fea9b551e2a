// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsAccess
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import Testing

/// Adopting other programs' settings: what a plan takes and keeps, where the sources are, how their files are read,
/// and the atomic change on the files.
@Suite struct MigrationTests {
    static let domain = try! DomainName("com.example.Editor")

    @Test("a plan takes absent keys, keeps or replaces differing ones, and leaves equal ones; keys are byte-exact")
    func planKeyByKey() {
        let source: PlistDictionary = ["New": 1, "Same": "x", "Differs": "theirs", "\u{E9}": "composed"]
        let current: PlistDictionary = ["Same": "x", "Differs": "mine", "e\u{301}": "decomposed", "Only": true]
        let keeping = MigrationPlan(source: source, current: current, overwrite: false)
        #expect(keeping.taken == [PlistKey("New"), PlistKey("\u{E9}")])
        #expect(keeping.kept == [PlistKey("Differs")])
        #expect(keeping.replaced.isEmpty)
        #expect(keeping.unchanged == [PlistKey("Same")])
        var values = current
        keeping.apply(source, to: &values)
        #expect(values.count == 6)
        #expect(values["Differs"] == "mine")
        #expect(values["e\u{301}"] == "decomposed" && values["\u{E9}"] == "composed")

        let overwriting = MigrationPlan(source: source, current: current, overwrite: true)
        #expect(overwriting.replaced == [PlistKey("Differs")])
        #expect(overwriting.kept.isEmpty)
        overwriting.apply(source, to: &values)
        #expect(values["Differs"] == "theirs")
        #expect(values["Only"] == true)
        #expect(!MigrationPlan(source: ["Same": "x"], current: current, overwrite: true).changesDomain)
    }

    @Test(
        "sources are found where Foundation, GNUstep and dconf put them",
        arguments: [
            (MigrationSource.Kind.foundation, ["HOME": "/home/ada"], "/home/ada/.config"),
            (.foundation, ["HOME": "/home/ada", "XDG_CONFIG_HOME": "/cfg"], "/cfg"),
            // A relative XDG_CONFIG_HOME is invalid (XDG Base Directory), and ignored.
            (.foundation, ["HOME": "/home/ada", "XDG_CONFIG_HOME": "cfg"], "/home/ada/.config"),
            (.gnustep, ["HOME": "/home/ada"], "/home/ada/GNUstep/Defaults"),
            (
                .gnustep, ["HOME": "/home/ada", "GNUSTEP_USER_DEFAULTS_DIR": "Library/Defaults"],
                "/home/ada/Library/Defaults"
            ),
            (.gnustep, ["HOME": "/home/ada", "GNUSTEP_USER_DEFAULTS_DIR": "/srv/defaults"], "/srv/defaults"),
            (.dconf, ["HOME": "/home/ada"], "/home/ada/.config/dconf"),
            (.dconf, ["HOME": "/home/ada", "XDG_CONFIG_HOME": "/cfg"], "/cfg/dconf"),
        ])
    func sourcesAreLocated(kind: MigrationSource.Kind, environment: [String: String], directory: String) {
        #expect(MigrationSource.located(kind, environment: environment)?.directory == directory)
    }

    @Test("a source's files: missing is nil, a non-dictionary or a broken file is corrupt, a FIFO is refused at once")
    func sourceFilesAreReadSafely() throws {
        let directory = try TemporaryDirectory()
        let source = MigrationSource(kind: .gnustep, directory: directory.path)
        #expect(try source.values(of: Self.domain) == nil)
        try Data("{ Mode = fast; Size = <*I3>; }".utf8).write(to: URL(fileURLWithPath: source.path(of: Self.domain)))
        #expect(try source.values(of: Self.domain) == ["Mode": "fast", "Size": 3])
        let listing = try source.domains()
        #expect(listing.domains == [Self.domain])

        for (contents, reason) in [
            ("(1, 2)", "holds a array, not a dictionary"), ("<plist><dict>", "is not a property list"),
        ] {
            try Data(contents.utf8).write(to: URL(fileURLWithPath: source.path(of: Self.domain)))
            let error = #expect(throws: PrefsAccessError.self) { try source.values(of: Self.domain) }
            #expect(error?.code == .corrupt)
            #expect(error?.message.contains(reason) == true, "\(String(describing: error))")
        }
        let fifo = try DomainName("com.example.Fifo")
        #expect(mkfifo(source.path(of: fifo), 0o600) == 0)
        let error = #expect(throws: PrefsAccessError.self) { try source.values(of: fifo) }
        #expect(error?.code == .ioFailure)
        #expect(try source.domains().domains == [Self.domain, fifo])
    }

    @Test("adopting on the files is one durable change; a dry run changes nothing; a later adoption keeps what is set")
    func adoptionOnTheFiles() throws {
        let directory = try TemporaryDirectory()
        let access = StoreAccess(
            paths: StorePaths(
                preferencesDirectory: directory.file("prefs"), systemDirectory: nil, shippedDirectory: nil,
                machineID: nil),
            configuration: StoreConfiguration(watchesFiles: false, flushesAtExit: false, diagnostics: { _ in }))
        let id = DomainID(Self.domain)
        try access.setValue("mine", forKey: "Theme", in: id)
        let source: PlistDictionary = ["Theme": "theirs", "Count": 2]
        let dryRun = try access.migrate(source, into: id, overwrite: false, dryRun: true)
        #expect(dryRun.taken == [PlistKey("Count")] && dryRun.kept == [PlistKey("Theme")])
        #expect(try access.values(of: id) == ["Theme": "mine"])
        let plan = try access.migrate(source, into: id, overwrite: false, dryRun: false)
        #expect(plan == dryRun)
        // Durable at once: a fresh read of the file has it.
        let file = try PlistSerialization.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("prefs/com.example.Editor.plist")))))
        #expect(file == ["Theme": "mine", "Count": 2])
        #expect(try !access.hasMigrated(Self.domain, from: .foundation))
        try access.recordMigrations([(Self.domain, .foundation)])
        #expect(try access.hasMigrated(Self.domain, from: .foundation))
        #expect(try !access.hasMigrated(Self.domain, from: .gnustep))
    }
}
