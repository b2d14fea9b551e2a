// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsCommandLine
import PrefsTestSupport
import Testing

/// The executables that are two programs, by the name they are run by: `defaults` run as `plutil` is plutil, and
/// `prefsd` run as `defaults-fleet` is the etcd administration of `defaults` (the package installs plutil and
/// defaults-fleet as links to them; docs/PACKAGING.md).
@Suite struct ProgramNameTests {
    /// A link named `name` to the built product `product`, in a directory of its own.
    private func link(_ name: String, to product: String, in directory: TemporaryDirectory) throws -> BuiltProduct {
        let path = directory.file(name)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: BuiltProduct(product).path)
        return BuiltProduct(path: path)
    }

    @Test func defaultsRunAsPlutilIsPlutil() throws {
        let directory = try TemporaryDirectory(prefix: "program-name")
        let plutil = try link("plutil", to: "defaults", in: directory)
        let version = try plutil.run(["--version"])
        #expect(version.status == 0)
        #expect(version.standardOutput == "plutil \(PreferencesVersion.current)\n")
        let file = directory.file("sample.plist")
        try Data("{ Answer = 42; }".utf8).write(to: URL(fileURLWithPath: file))
        let extracted = try plutil.run(["-extract", "Answer", "raw", "-o", "-", file])
        #expect(extracted.status == 0, "\(extracted)")
        #expect(extracted.standardOutput == "42\n")
        let misspelled = try plutil.run(["-lnit", file])
        #expect(misspelled.status == 2, "\(misspelled)")
    }

    @Test func defaultsRunByAnyOtherNameIsDefaults() throws {
        let directory = try TemporaryDirectory(prefix: "program-name")
        let renamed = try link("plutil-old", to: "defaults", in: directory)
        let version = try renamed.run(["--version"])
        #expect(version.standardOutput == "defaults \(PreferencesVersion.current)\n")
    }
}
