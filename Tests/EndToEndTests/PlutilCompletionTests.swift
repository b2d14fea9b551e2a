// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

/// `plutil -completion bash|zsh|fish`, and the bash script run in bash against the built plutil.
@Suite struct PlutilCompletionTests {
    let plutil = BuiltProduct("plutil")

    static let bash = ["/usr/bin/bash", "/bin/bash"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Every option the scripts offer, in the order they offer them.
    static let options = [
        "-lint", "-convert", "-p", "-extract", "-help", "-version", "-completion", "-o", "-e", "-r", "-s",
        "-schema",
    ]

    /// Sources `plutil -completion bash` in a bash process started in `directory`, calls `_plutil` with the words
    /// (the last one being completed) and returns the candidates, one per line.
    private func complete(_ words: [String], in directory: TemporaryDirectory) throws -> String {
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let result = try BuiltProduct(path: try #require(Self.bash)).run(
            [
                "-c",
                """
                source <('\(plutil.path)' -completion bash)
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _plutil
                printf '%s\\n' "${COMPREPLY[@]}"
                """,
            ], in: directory.path)
        #expect(result.status == 0, "\(words): \(result)")
        #expect(result.standardError == "", "\(words)")
        return result.standardOutput
    }

    @Test(.enabled(if: bash != nil, "bash is not installed"))
    func bashCompletesCommandsOptionsFormatsAndFiles() throws {
        let directory = try TemporaryDirectory(prefix: "plutil-completion")
        for name in ["Settings.plist", "Saved State.plist", "other.json"] {
            #expect(FileManager.default.createFile(atPath: directory.file(name), contents: Data()))
        }
        #expect(try complete(["plutil", "-"], in: directory) == (Self.options + ["--"]).map { $0 + "\n" }.joined())
        #expect(try complete(["plutil", "-co"], in: directory) == "-convert\n-completion\n")
        #expect(try complete(["plutil", "-convert", ""], in: directory) == "xml1\nbinary1\njson\nopenstep\n")
        #expect(try complete(["plutil", "-convert", "json", "-"], in: directory) == "-o\n-e\n-r\n-s\n-schema\n--\n")
        #expect(try complete(["plutil", "-extract", "Window.Frame", "r"], in: directory) == "raw\n")
        #expect(try complete(["plutil", "-extract", ""], in: directory) == "\n", "a key path is not completed")
        #expect(try complete(["plutil", "-completion", "z"], in: directory) == "zsh\n")
        // File names come in the directory's order.
        let files = try complete(["plutil", "-p", "S"], in: directory).split(separator: "\n").sorted()
        #expect(files == ["Saved State.plist", "Settings.plist"])
        #expect(try complete(["plutil", "-convert", "xml1", "-o", "o"], in: directory) == "other.json\n")
    }

    static func executable(_ name: String) -> String? {
        ["/usr/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test(.enabled(if: executable("fish") != nil, "fish is not installed"))
    func fishCompletesCommandsOptionsFormatsAndFiles() throws {
        let fish = try #require(Self.executable("fish"))
        let directory = try TemporaryDirectory(prefix: "plutil-completion")
        for name in ["Settings.plist", "other.json"] {
            #expect(FileManager.default.createFile(atPath: directory.file(name), contents: Data()))
        }
        // Installed where fish looks first, so that it wins over the completions fish ships for macOS's plutil.
        let completions = directory.file("config/fish/completions")
        try FileManager.default.createDirectory(atPath: completions, withIntermediateDirectories: true)
        try plutil.run(["-completion", "fish"]).standardOutput.write(
            toFile: completions + "/plutil.fish", atomically: true, encoding: .utf8)
        func complete(_ line: String) throws -> String {
            let result = try BuiltProduct(path: fish).run(
                ["-c", "complete -C '\(line)'"], environment: ["XDG_CONFIG_HOME": directory.file("config")],
                in: directory.path)
            #expect(result.status == 0, "\(line): \(result)")
            #expect(result.standardError == "", "\(line)")
            // The candidates, without the descriptions fish prints after a tab.
            return result.standardOutput.split(separator: "\n").map { $0.prefix { $0 != "\t" } + "\n" }.joined()
        }
        #expect(try complete("plutil -co") == "-completion\n-convert\n")
        #expect(try complete("plutil -convert ") == "binary1\njson\nopenstep\nxml1\n")
        #expect(try complete("plutil -convert json -") == "-e\n-o\n-r\n-s\n", "one command per line")
        #expect(try complete("plutil -extract Window ") == "binary1\njson\nopenstep\nraw\nxml1\n")
        #expect(try complete("plutil -extract ") == "", "a key path is not completed")
        #expect(try complete("plutil -p S") == "Settings.plist\n")
        #expect(try complete("plutil -convert xml1 -o o") == "other.json\n")
    }

    @Test(.enabled(if: executable("zsh") != nil, "zsh is not installed"))
    func theZshScriptParses() throws {
        let directory = try TemporaryDirectory(prefix: "plutil-completion")
        let script = directory.file("_plutil")
        try plutil.run(["-completion", "zsh"]).standardOutput.write(toFile: script, atomically: true, encoding: .utf8)
        let check = try BuiltProduct(path: try #require(Self.executable("zsh"))).run(["-n", script])
        #expect(check.status == 0, "\(check)")
    }

    /// What the scripts offer is what plutil takes: none of the options is refused as unknown.
    @Test(arguments: options)
    func everyOfferedOptionIsOnePlutilKnows(option: String) throws {
        let result = try plutil.run([option])
        #expect(!result.standardError.contains("Unrecognized option"), "\(result)")
    }

    @Test(.enabled(if: bash != nil, "bash is not installed"))
    func theBashScriptParses() throws {
        let directory = try TemporaryDirectory(prefix: "plutil-completion")
        let script = directory.file("plutil.bash")
        let printed = try plutil.run(["-completion", "bash"])
        #expect(printed.status == 0)
        try printed.standardOutput.write(toFile: script, atomically: true, encoding: .utf8)
        let check = try BuiltProduct(path: try #require(Self.bash)).run(["-n", script])
        #expect(check.status == 0, "\(check)")
    }

    @Test func eachShellsScriptRegistersItself() throws {
        let bash = try plutil.run(["-completion", "bash"])
        #expect(bash.standardOutput.contains("\ncomplete -F _plutil plutil\n"))
        let zsh = try plutil.run(["-completion", "zsh"])
        #expect(zsh.standardOutput.hasPrefix("#compdef plutil\n"))
        #expect(zsh.standardOutput.contains(":key path: :format:(xml1 binary1 json openstep raw)'"))
        let fish = try plutil.run(["-completion", "fish"])
        #expect(fish.standardOutput.contains("\ncomplete -c plutil -e\n"))
        #expect(fish.standardOutput.contains("complete -c plutil -n '__plutil_argument_of -extract 2' -f -a "))
        for result in [bash, zsh, fish] {
            #expect(result.status == 0)
            #expect(result.standardError == "")
        }
    }
}
