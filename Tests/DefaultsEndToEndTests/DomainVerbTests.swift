// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsTestSupport
import Testing

/// `rename`, `delete`, `import`, `export`, `domains` and `find`.
@Suite struct DomainVerbTests {
    @Test func renameMovesTheValue() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Old", "-int", "5"])
        try sandbox.succeed(["rename", "com.example.App", "Old", "New"])
        expectRun(try sandbox.run(["read", "com.example.App"]), stdout: "{\n    New = 5;\n}\n")
        try sandbox.succeed(["rename", "com.example.App", "New", "New"])
        expectRun(try sandbox.run(["read", "com.example.App"]), stdout: "{\n    New = 5;\n}\n")
    }

    @Test func renameOfAMissingKeyLeavesDefaultsUnchanged() throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["rename", "com.example.App", "Old", "New"]), status: 1,
            stderr: "Key Old does not exist in domain com.example.App; leaving defaults unchanged\n")
        expectRun(
            try sandbox.run(["rename", "-g", "Old", "New"]), status: 1,
            stderr: "Key Old does not exist in domain Apple Global Domain; leaving defaults unchanged\n")
    }

    @Test func deleteRemovesAKeyThenTheDomain() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "{ A = 1; B = 2; }"])
        try sandbox.succeed(["delete", "com.example.App", "A"])
        expectRun(try sandbox.run(["read", "com.example.App"]), stdout: "{\n    B = 2;\n}\n")
        try sandbox.succeed(["delete", "com.example.App"])
        #expect(!sandbox.exists("prefs/com.example.App.plist"))
        try sandbox.succeed(["write", "com.example.App", "C", "3"])
        try sandbox.succeed(["remove", "com.example.App", "C"])
        #expect(!sandbox.exists("prefs/com.example.App.plist"))
    }

    @Test func deleteOfWhatDoesNotExistSaysTheDomainIsNotFound() throws {
        let sandbox = try Sandbox()
        let message = "\nDomain (com.example.App) not found.\nDefaults have not been changed.\n"
        expectRun(try sandbox.run(["delete", "com.example.App"]), status: 1, stderr: message)
        expectRun(try sandbox.run(["delete", "com.example.App", "Key"]), status: 1, stderr: message)
        try sandbox.succeed(["write", "com.example.App", "Other", "x"])
        expectRun(try sandbox.run(["delete", "com.example.App", "Key"]), status: 1, stderr: message)
        expectRun(
            try sandbox.run(["delete", "-g", "Key"]), status: 1,
            stderr: "\nDomain (kCFPreferencesAnyApplication) not found.\nDefaults have not been changed.\n")
    }

    @Test func deleteOfACorruptDomainSetsItsFileAside() throws {
        let sandbox = try Sandbox()
        try sandbox.write("prefs/com.example.Broken.plist", "{ broken")
        let result = try sandbox.run(["delete", "com.example.Broken"])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardError.contains("renamed to com.example.Broken.plist.corrupt-"))
        #expect(!sandbox.exists("prefs/com.example.Broken.plist"))
        #expect(sandbox.list("prefs").contains { $0.hasPrefix("com.example.Broken.plist.corrupt-") })
    }

    @Test func importMergesADictionaryFromAFileInAnyFormat() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "{ Kept = yes; Theme = light; }"])
        try sandbox.write("in.json", #"{"Theme": "dark", "Size": 12}"#)
        try sandbox.succeed(["import", "com.example.App", sandbox.directory.file("in.json")])
        expectRun(
            try sandbox.run(["read", "com.example.App"]),
            stdout: "{\n    Kept = yes;\n    Size = 12;\n    Theme = dark;\n}\n")
        let binary = try PlistSerialization.encode(["Flag": true], format: .binary)
        try Data(binary).write(to: URL(fileURLWithPath: sandbox.directory.file("in.plist")))
        try sandbox.succeed(["import", "com.example.App", sandbox.directory.file("in.plist")])
        expectRun(try sandbox.run(["read-type", "com.example.App", "Flag"]), stdout: "Type is boolean\n")
    }

    @Test func importReadsStandardInputForADash() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(["import", "com.example.App", "-"], input: "{ Theme = dark; List = (a); }")
        expectRun(result)
        expectRun(
            try sandbox.run(["read", "com.example.App"]),
            stdout: "{\n    List =     (\n        a\n    );\n    Theme = dark;\n}\n")
    }

    @Test func importErrorsUseMacOSWords() throws {
        let sandbox = try Sandbox()
        expectRun(
            try sandbox.run(["import", "com.example.App"]), status: 1, stderr: "\nNeed a path to read from\n")
        let missing = sandbox.directory.file("missing.plist")
        expectRun(
            try sandbox.run(["import", "com.example.App", missing]), status: 1,
            stderr: "Could not read data from \(missing) (No such file or directory)\n")
        expectRun(
            try sandbox.run(["import", "com.example.App", "-"], input: "(1, 2)"), status: 1,
            stderr: "Property list (\n    1,\n    2\n) was not a dictionary\nDefaults have not been changed.\n")
        let result = try sandbox.run(["import", "com.example.App", "-"], input: "{ unterminated")
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("Could not parse property list from - due to "))
        #expect(!sandbox.exists("prefs/com.example.App.plist"))
    }

    @Test("import reads at most the size limit of a domain from a device, a large file or standard input")
    func importRefusesInputsLargerThanADomain() throws {
        let sandbox = try Sandbox()
        let reason = "more than 4194304 bytes: import reads at most 4194304 bytes, the size limit of a domain"
        expectRun(
            try sandbox.run(["import", "com.example.App", "/dev/zero"]), status: 1,
            stderr: "Could not read data from /dev/zero (\(reason))\n")
        let large = sandbox.directory.file("large.plist")
        try Data(repeating: 0x20, count: 4_194_305).write(to: URL(fileURLWithPath: large))
        expectRun(
            try sandbox.run(["import", "com.example.App", large]), status: 1,
            stderr: "Could not read data from \(large) (\(reason))\n")

        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "exec \"$0\" import com.example.App - < /dev/zero", sandbox.defaults.path]
        shell.environment = ProcessInfo.processInfo.environment.merging(sandbox.environment) { _, new in new }
        let errorPipe = Pipe.closingOnExec()
        shell.standardError = errorPipe
        shell.standardOutput = FileHandle.nullDevice
        try shell.run()
        let error = String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 1)
        #expect(error == "Could not read data from - (\(reason))\n")
        #expect(!sandbox.exists("prefs/com.example.App.plist"))
    }

    @Test func exportToStandardOutputWritesXML() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Theme", "dark"])
        let expected = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>Theme</key>
            \t<string>dark</string>
            </dict>
            </plist>

            """
        expectRun(try sandbox.run(["export", "com.example.App", "-"]), stdout: expected)
    }

    @Test func exportToAPathWritesABinaryPlist() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "{ Theme = dark; List = (a, b); }"])
        let path = sandbox.directory.file("out.plist")
        try sandbox.succeed(["export", "com.example.App", path])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        #expect(try PlistSerialization.decode(bytes) == ["Theme": "dark", "List": ["a", "b"]])
        // A new file gets 0666 less the umask, as open(2) gives it (read from /proc: umask(2) would change it).
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let umaskLine = status.split(separator: "\n").first { $0.hasPrefix("Umask:") }
        let umask = Int(umaskLine?.split(separator: "\t").last ?? "", radix: 8) ?? 0o022
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o666 & ~umask)
    }

    @Test func relativePathsOfImportAndExportAreTakenFromTheWorkingDirectory() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Theme", "dark"])
        expectRun(try sandbox.run(["export", "com.example.App", "out.plist"], in: sandbox.directory.path))
        #expect(sandbox.exists("out.plist"))
        expectRun(try sandbox.run(["import", "com.example.Copy", "out.plist"], in: sandbox.directory.path))
        expectRun(try sandbox.run(["read", "com.example.Copy", "Theme"]), stdout: "dark\n")
        expectRun(try sandbox.run(["export", "com.example.App", "~/home.plist"]))
        #expect(sandbox.exists("home.plist"))
    }

    @Test("export writes through a FIFO and a symbolic link as cp would, and never replaces them")
    func exportWritesThroughFIFOsAndLinks() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Theme", "dark"])
        let fifo = sandbox.directory.file("pipe")
        try SpecialFiles.makeFIFO(fifo)
        let reader = try FIFOReader(fifo)
        try sandbox.succeed(["export", "com.example.App", fifo])
        let received = try #require(reader.finish(), "nothing was written to the FIFO")
        #expect(try PlistSerialization.decode(Array(received)) == ["Theme": "dark"])
        #expect(SpecialFiles.kind(fifo) == "fifo")

        // A link to a file: the file is replaced (atomically), the link stays; a dangling link gets its target.
        let real = sandbox.directory.file("real.plist")
        try Data("old".utf8).write(to: URL(fileURLWithPath: real))
        let link = sandbox.directory.file("link.plist")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.plist")
        try sandbox.succeed(["export", "com.example.App", link])
        #expect(SpecialFiles.kind(link) == "link")
        #expect(try PlistSerialization.decode(Array(Data(contentsOf: URL(fileURLWithPath: real)))) == ["Theme": "dark"])
        let dangling = sandbox.directory.file("dangling.plist")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "created.plist")
        try sandbox.succeed(["export", "com.example.App", dangling])
        #expect(SpecialFiles.kind(dangling) == "link")
        #expect(SpecialFiles.kind(sandbox.directory.file("created.plist")) == "regular")
        #expect(sandbox.list("").filter { $0.contains(".tmp-") }.isEmpty)

        // /dev/stdout is a link to the process's own descriptor, here a pipe: written through, as cp would.
        let piped = try sandbox.run(["export", "com.example.App", "/dev/stdout"])
        #expect(piped.status == 0, "\(piped)")
        #expect(try PlistSerialization.decode(piped.standardOutputBytes) == ["Theme": "dark"])
    }

    @Test(
        "export to a character device writes to it and leaves the device in place",
        .enabled(if: SpecialFiles.canMakeDevices, "mknod needs CAP_MKNOD"))
    func exportToADeviceWritesThroughIt() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Theme", "dark"])
        let device = sandbox.directory.file("null.plist")
        try SpecialFiles.makeNullDevice(device)
        try sandbox.succeed(["export", "com.example.App", device])
        #expect(SpecialFiles.kind(device) == "character device")
        #expect(SpecialFiles.deviceNumbers(device)?.major == 1 && SpecialFiles.deviceNumbers(device)?.minor == 3)
        // A domain given as that path is not a property-list file: writing it fails and leaves the device alone.
        let write = try sandbox.run(["write", device, "k", "v"])
        #expect(write.status == 1)
        #expect(write.standardError.contains("not a regular file"), "\(write)")
        #expect(SpecialFiles.kind(device) == "character device")
    }

    @Test func exportOfAMissingDomainIsAnEmptyDictionary() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(["export", "com.example.Missing", "-"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasSuffix("<plist version=\"1.0\">\n<dict/>\n</plist>\n"))
    }

    @Test func exportWithoutAPathSaysSo() throws {
        let sandbox = try Sandbox()
        expectRun(try sandbox.run(["export", "com.example.App"]), status: 1, stderr: "\nNeed a path to write to\n")
    }

    @Test func exportToAnUnwritablePlaceSaysWhy() throws {
        let sandbox = try Sandbox()
        try sandbox.succeed(["write", "com.example.App", "Theme", "dark"])
        let path = sandbox.directory.file("no/such/dir/out.plist")
        let result = try sandbox.run(["export", "com.example.App", path])
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("Could not export domain com.example.App to \(path) due to "))
        #expect(result.standardError.hasSuffix("No such file or directory\n"))
    }

    @Test func domainsListsNamesWithoutTheGlobalDomain() throws {
        let sandbox = try Sandbox()
        expectRun(try sandbox.run(["domains"]), stdout: "\n")
        try sandbox.domain("org.example.Tool", "{ a = 1; }")
        try sandbox.domain("com.example.App", "{ a = 1; }")
        try sandbox.domain("NSGlobalDomain", "{ a = 1; }")
        try sandbox.write("prefs/not a domain.plist", "{ a = 1; }")
        try sandbox.write("prefs/notes.txt", "x")
        expectRun(try sandbox.run(["domains"]), stdout: "com.example.App, org.example.Tool\n")
    }

    @Test func findPrintsMatchingKeysOfEachDomain() throws {
        let sandbox = try Sandbox()
        try sandbox.domain("com.example.App", "{ Theme = Dark; Other = x; List = (a, darkness); Size = 3; }")
        try sandbox.domain("com.example.Dark", "{ a = 1; }")
        try sandbox.domain("NSGlobalDomain", "{ AppleInterfaceStyle = Dark; }")
        let expected = """
            Found 1 keys in domain 'Apple Global Domain': {
                AppleInterfaceStyle = Dark;
            }
            Found 2 keys in domain 'com.example.App': {
                List =     (
                    a,
                    darkness
                );
                Theme = Dark;
            }
            Found 1 keys in domain 'com.example.Dark': {
                a = 1;
            }

            """
        expectRun(try sandbox.run(["find", "dark"]), stdout: expected)
    }

    @Test func findWithoutMatchesSaysSoAndSucceeds() throws {
        let sandbox = try Sandbox()
        try sandbox.domain("com.example.App", "{ Theme = light; }")
        expectRun(try sandbox.run(["find", "zebra"]), stderr: "No domain, key, nor value containing 'zebra'\n")
    }
}
