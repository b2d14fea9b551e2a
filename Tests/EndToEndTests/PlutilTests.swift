// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsCommandLine
import PrefsTestSupport
import Testing

/// Runs the built `plutil` and checks stdout, stderr and the exit code exactly.
@Suite struct PlutilTests {
    let plutil = BuiltProduct("plutil")

    static let sampleOpenStep = """
        {
            Name = "Preferences for Linux";
            Window = { Frame = "{{0, 0}, {800, 600}}"; Maximized = NO; };
            Recent = ( "~/notes.txt", "~/todo.md" );
            "dotted.key" = value;
            Icon = <89504e47>;
        }
        """

    static let sampleXML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>Icon</key>
        \t<data>
        \tiVBORw==
        \t</data>
        \t<key>Name</key>
        \t<string>Preferences for Linux</string>
        \t<key>Recent</key>
        \t<array>
        \t\t<string>~/notes.txt</string>
        \t\t<string>~/todo.md</string>
        \t</array>
        \t<key>Window</key>
        \t<dict>
        \t\t<key>Frame</key>
        \t\t<string>{{0, 0}, {800, 600}}</string>
        \t\t<key>Maximized</key>
        \t\t<string>NO</string>
        \t</dict>
        \t<key>dotted.key</key>
        \t<string>value</string>
        </dict>
        </plist>

        """

    private func sample(in directory: TemporaryDirectory, name: String = "Sample.plist") throws -> String {
        let path = directory.file(name)
        try Self.sampleOpenStep.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func lintReportsOKForEachGoodFile() throws {
        let directory = try TemporaryDirectory()
        let path = try sample(in: directory)
        let result = try plutil.run(["-lint", path, path])
        #expect(result.status == 0)
        #expect(result.standardOutput == "\(path): OK\n\(path): OK\n")
        #expect(result.standardError == "")
    }

    @Test func lintNamesTheProblemAndFailsWhenAnyFileIsBad() throws {
        let directory = try TemporaryDirectory()
        let good = try sample(in: directory)
        let bad = directory.file("bad.plist")
        try "<plist><dict><key>a</key></dict></plist>".write(toFile: bad, atomically: true, encoding: .utf8)
        let result = try plutil.run(["-lint", good, bad])
        #expect(result.status == 1)
        #expect(result.standardOutput == "\(good): OK\n")
        #expect(result.standardError.hasPrefix("\(bad): "))
        #expect(result.standardError.contains("line"))
    }

    @Test func lintSilentPrintsOnlyProblems() throws {
        let directory = try TemporaryDirectory()
        let result = try plutil.run(["-lint", "-s", try sample(in: directory)])
        #expect(result.status == 0)
        #expect(result.standardOutput == "")
    }

    @Test func lintOfAMissingFileSaysSo() throws {
        let result = try plutil.run(["-lint", "/nonexistent/file.plist"])
        #expect(result.status == 1)
        #expect(
            result.standardError
                == "/nonexistent/file.plist: cannot open /nonexistent/file.plist: No such file or directory\n")
    }

    @Test("an input that never ends is refused at the readers' 256 MiB limit, from a device and from standard input")
    func endlessInputIsRefusedAtTheLimit() throws {
        let limitText = "more than 268435456 bytes, the most plutil reads (the property-list readers' limit, 256 MiB)"
        let device = try plutil.run(["-lint", "/dev/zero"])
        #expect(device.status == 1)
        #expect(device.standardOutput == "")
        #expect(device.standardError == "/dev/zero: cannot read /dev/zero: \(limitText)\n")

        // Standard input from the same device, through a shell's redirection.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "exec \"$0\" -lint - < /dev/zero", plutil.path]
        let errorPipe = Pipe.closingOnExec()
        shell.standardError = errorPipe
        shell.standardOutput = FileHandle.nullDevice
        try shell.run()
        let error = String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 1)
        #expect(error == "-: cannot read -: \(limitText)\n")
    }

    @Test("-convert -o writes through a FIFO, a symbolic link and a device as cp would; an input link stays a link")
    func convertWritesThroughSpecialFiles() throws {
        let directory = try TemporaryDirectory()
        let input = try sample(in: directory)
        let fifo = directory.file("pipe")
        try SpecialFiles.makeFIFO(fifo)
        let reader = try FIFOReader(fifo)
        let toFIFO = try plutil.run(["-convert", "xml1", "-o", fifo, input])
        #expect(toFIFO.status == 0, "\(toFIFO)")
        let received = try #require(reader.finish(), "nothing was written to the FIFO")
        #expect(String(decoding: received, as: UTF8.self) == Self.sampleXML)
        #expect(SpecialFiles.kind(fifo) == "fifo")

        let real = directory.file("real.plist")
        try Data("old".utf8).write(to: URL(fileURLWithPath: real))
        let link = directory.file("link.plist")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        #expect(try plutil.run(["-convert", "xml1", "-o", link, input]).status == 0)
        #expect(SpecialFiles.kind(link) == "link")
        #expect(try String(contentsOfFile: real, encoding: .utf8) == Self.sampleXML)
        // Converting a link in place converts its target.
        #expect(try plutil.run(["-convert", "binary1", link]).status == 0)
        #expect(SpecialFiles.kind(link) == "link")
        #expect(try Data(contentsOf: URL(fileURLWithPath: real)).starts(with: Array("bplist00".utf8)))

        if SpecialFiles.canMakeDevices {
            let device = directory.file("null")
            try SpecialFiles.makeNullDevice(device)
            #expect(try plutil.run(["-convert", "xml1", "-o", device, input]).status == 0)
            #expect(SpecialFiles.kind(device) == "character device")
        }
    }

    @Test func convertToXMLInPlaceWritesApplesLayout() throws {
        let directory = try TemporaryDirectory()
        let path = try sample(in: directory)
        let result = try plutil.run(["-convert", "xml1", path])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput == "")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.sampleXML)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["Sample.plist"])
    }

    @Test func convertToBinaryAndBackIsLossless() throws {
        let directory = try TemporaryDirectory()
        let path = try sample(in: directory)
        #expect(try plutil.run(["-convert", "binary1", path]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(8) == Data("bplist00".utf8))
        let back = try plutil.run(["-convert", "xml1", "-o", "-", path])
        #expect(back.status == 0)
        #expect(back.standardOutput == Self.sampleXML)
    }

    @Test func convertWithExtensionWritesBesideTheInput() throws {
        let directory = try TemporaryDirectory()
        let path = try sample(in: directory)
        #expect(try plutil.run(["-convert", "xml1", "-e", "xml", path]).status == 0)
        #expect(try String(contentsOfFile: directory.file("Sample.xml"), encoding: .utf8) == Self.sampleXML)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.sampleOpenStep)
    }

    @Test func convertToJSONRefusesDataAndLeavesTheFileAlone() throws {
        let directory = try TemporaryDirectory()
        let path = try sample(in: directory)
        let result = try plutil.run(["-convert", "json", path])
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("\(path): "))
        #expect(result.standardError.contains("Icon"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.sampleOpenStep)
    }

    @Test func convertToJSONCompactAndReadable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("j.plist")
        try "{ b = ( x, y ); a = \"1\"; }".write(toFile: path, atomically: true, encoding: .utf8)
        let compact = try plutil.run(["-convert", "json", "-o", "-", path])
        #expect(compact.standardOutput == #"{"a":"1","b":["x","y"]}"#)
        let readable = try plutil.run(["-convert", "json", "-r", "-o", "-", path])
        #expect(readable.status == 0)
        #expect(readable.standardOutput.contains("\n  \"b\""))
    }

    @Test func convertReadsStandardInput() throws {
        let result = try plutil.run(["-convert", "xml1", "-o", "-", "-"], input: Array(Self.sampleOpenStep.utf8))
        #expect(result.status == 0)
        #expect(result.standardOutput == Self.sampleXML)
    }

    @Test func printShowsAReadableTree() throws {
        let directory = try TemporaryDirectory()
        let result = try plutil.run(["-p", try sample(in: directory)])
        #expect(result.status == 0)
        #expect(
            result.standardOutput == """
                {
                  "Icon" => {length = 4, bytes = 0x89504e47}
                  "Name" => "Preferences for Linux"
                  "Recent" => [
                    0 => "~/notes.txt"
                    1 => "~/todo.md"
                  ]
                  "Window" => {
                    "Frame" => "{{0, 0}, {800, 600}}"
                    "Maximized" => "NO"
                  }
                  "dotted.key" => "value"
                }

                """)
    }

    @Test(arguments: [
        ("Name", "Preferences for Linux\n"),
        ("Window.Frame", "{{0, 0}, {800, 600}}\n"),
        ("Recent.1", "~/todo.md\n"),
        ("dotted\\.key", "value\n"),
        ("Icon", "iVBORw==\n"),
    ])
    func extractRawPrintsTheBareValue(keyPath: String, expected: String) throws {
        let directory = try TemporaryDirectory()
        let result = try plutil.run(["-extract", keyPath, "raw", try sample(in: directory)])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput == expected)
    }

    @Test func extractAContainerAsXML() throws {
        let directory = try TemporaryDirectory()
        let result = try plutil.run(["-extract", "Recent", "xml1", "-o", "-", try sample(in: directory)])
        #expect(result.status == 0)
        #expect(
            result.standardOutput.hasSuffix(
                "<plist version=\"1.0\">\n<array>\n\t<string>~/notes.txt</string>\n\t<string>~/todo.md</string>\n</array>\n</plist>\n"
            ))
    }

    @Test func extractOfAMissingKeyFails() throws {
        let directory = try TemporaryDirectory()
        let path = try sample(in: directory)
        let result = try plutil.run(["-extract", "Window.Nope", "raw", path])
        #expect(result.status == 1)
        #expect(result.standardError == "\(path): No value at that key path (Window.Nope).\n")
    }

    @Test func extractRawOfAContainerExplainsWhy() throws {
        let directory = try TemporaryDirectory()
        let result = try plutil.run(["-extract", "Window", "raw", try sample(in: directory)])
        #expect(result.status == 1)
        #expect(result.standardError.contains("is a dictionary"))
    }

    /// The reason on one line, a hint, exit status 2, and not the whole usage text.
    @Test(arguments: [
        (["-convert", "yaml", "x.plist"], "Unknown format specifier: yaml (use xml1, binary1, json or openstep)."),
        (["-lint"], "No files specified."),
        (["-bogus", "x.plist"], "Unrecognized option: -bogus"),
        (["x.plist"], "No command specified."),
        ([], "No command specified."),
        (["-lint", "-p", "x.plist"], "Cannot combine -lint with -p."),
        (["-lnit", "x.plist"], "Unrecognized option: -lnit; did you mean '-lint'?"),
        (["--convret", "json", "x.plist"], "Unrecognized option: --convret; did you mean '-convert'?"),
        (["-verison"], "Unrecognized option: -verison; did you mean '-version'?"),
        (["-x", "x.plist"], "Unrecognized option: -x"),
        (["lint", "x.plist"], "No command specified; did you mean '-lint'?"),
        (["-completion", "tcsh"], "-completion takes bash, zsh or fish."),
        (["-completion"], "Missing argument for -completion."),
    ])
    func usageErrorsPrintTheReasonAndAHintAndExitTwo(arguments: [String], reason: String) throws {
        let result = try plutil.run(arguments)
        #expect(result.status == 2)
        #expect(result.standardOutput == "")
        #expect(result.standardError == "plutil: \(reason)\nRun 'plutil -help' for usage.\n")
    }

    @Test(arguments: ["-version", "--version"])
    func versionPrintsOneLine(option: String) throws {
        let result = try plutil.run([option])
        #expect(result.status == 0)
        #expect(result.standardOutput == "plutil \(PreferencesVersion.current)\n")
        #expect(result.standardError == "")
    }

    @Test func helpGoesToStandardOutput() throws {
        let result = try plutil.run(["-help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("examples:"))
    }
}
