// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

/// The generated completion scripts, run in the real shells (each test skips when its shell is missing), and the
/// manual page, checked with groff.
@Suite struct CompletionTests {
    static func executable(_ name: String) -> String? {
        for directory in ["/usr/bin", "/bin", "/usr/local/bin"] {
            let path = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// A sandbox with two domains and the global domain, and a shell environment whose PATH finds the built
    /// `defaults`.
    private func sandbox() throws -> (Sandbox, [String: String]) {
        let sandbox = try Sandbox()
        try sandbox.domain("com.example.App", "{ Theme = dark; \"Two Words\" = x; }")
        try sandbox.domain("com.example.Other", "{ a = 1; }")
        try sandbox.domain("NSGlobalDomain", "{ AppleLanguages = (en); }")
        var environment = ProcessInfo.processInfo.environment.merging(sandbox.environment) { _, new in new }
        let binDirectory = (sandbox.defaults.path as NSString).deletingLastPathComponent
        environment["PATH"] = binDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return (sandbox, environment)
    }

    /// Runs a shell script and returns its standard output; expects it to succeed without errors.
    private func shell(_ path: String, _ script: String, environment: [String: String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-c", script]
        process.environment = environment
        let output = Pipe.closingOnExec()
        let error = Pipe.closingOnExec()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(script)\n\(errors)")
        #expect(errors == "", "\(script)")
        return text
    }

    @Test(.enabled(if: executable("bash") != nil, "bash is not installed"))
    func bashCompletesVerbsDomainsKeysFlagsAndFormats() throws {
        let bash = try #require(Self.executable("bash"))
        let (sandbox, environment) = try sandbox()
        defer { withExtendedLifetime(sandbox) {} }
        func complete(_ words: [String]) throws -> String {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            return try shell(
                bash,
                """
                source <(defaults completion bash)
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _defaults
                printf '%s\\n' "${COMPREPLY[@]}"
                """, environment: environment)
        }
        #expect(try complete(["defaults", "re"]) == "read\nread-type\nrename\n")
        #expect(try complete(["defaults", "-cur"]) == "-currentHost\n")
        #expect(try complete(["defaults", "read", "com."]) == "com.example.App\ncom.example.Other\n")
        #expect(try complete(["defaults", "read", "-g"]) == "-g\n-globalDomain\n")
        // The global domain's file exists, and its names are offered once each.
        #expect(try complete(["defaults", "read", "N"]) == "NSGlobalDomain\n")
        #expect(
            try complete(["defaults", "read", ""])
                == "com.example.App\ncom.example.Other\n-g\n-globalDomain\nNSGlobalDomain\n")
        #expect(try complete(["defaults", "explain", "-suite", ""]) == "com.example.App\ncom.example.Other\n")
        #expect(try complete(["defaults", "write", "com.example.App", ""]) == "Theme\nTwo\\ Words\n")
        #expect(try complete(["defaults", "write", "com.example.App", "Theme", "-in"]) == "-int\n-integer\n")
        #expect(
            try complete(["defaults", "write", "com.example.App", "Theme", "-array", "a", "-b"]) == "-bool\n-boolean\n")
        #expect(try complete(["defaults", "read", "-format", "j"]) == "json\n")
        #expect(try complete(["defaults", "-currentHost", "exp"]) == "export\nexplain\n")
        #expect(try complete(["defaults", "completion", ""]) == "bash\nzsh\nfish\n")
    }

    @Test(.enabled(if: executable("zsh") != nil, "zsh is not installed"))
    func zshCompletesVerbsDomainsKeysAndFlags() throws {
        let zsh = try #require(Self.executable("zsh"))
        let (sandbox, environment) = try sandbox()
        defer { withExtendedLifetime(sandbox) {} }
        func complete(_ words: [String]) throws -> String {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            return try shell(
                zsh,
                """
                compadd() {
                    if [[ $1 == -a ]]; then print -l -- ${(P)2}; return; fi
                    [[ $1 == -- ]] && shift
                    print -l -- "$@"
                }
                compdef() { : }
                _files() { print _files }
                source <(defaults completion zsh)
                words=(\(quoted)); CURRENT=\(words.count); PREFIX=\(words.last.map { "'\($0)'" } ?? "''")
                _defaults
                """, environment: environment)
        }
        #expect(try complete(["defaults", ""]).hasPrefix("read\nread-type\nwrite\n"))
        #expect(
            try complete(["defaults", "read", ""])
                == "-g\n-globalDomain\nNSGlobalDomain\ncom.example.App\ncom.example.Other\n")
        #expect(try complete(["defaults", "read", "./"]) == "_files\n")
        #expect(try complete(["defaults", "read", "com.example.App", ""]) == "Theme\nTwo Words\n")
        #expect(try complete(["defaults", "write", "com.example.App", "K", ""]).hasPrefix("-string\n-data\n"))
        #expect(try complete(["defaults", "export", "-format", ""]) == "openstep\nxml\njson\nbinary\n")
    }

    @Test(.enabled(if: executable("fish") != nil, "fish is not installed"))
    func fishCompletesVerbsDomainsKeysAndFlags() throws {
        let fish = try #require(Self.executable("fish"))
        let (sandbox, environment) = try sandbox()
        defer { withExtendedLifetime(sandbox) {} }
        // Installed where fish looks first, so that it wins over fish's own completions for macOS's defaults.
        let completions = sandbox.directory.path + "/config/fish/completions"
        try FileManager.default.createDirectory(atPath: completions, withIntermediateDirectories: true)
        _ = try shell(fish, "defaults completion fish > '\(completions)/defaults.fish'", environment: environment)
        func complete(_ line: String) throws -> String {
            try shell(fish, "complete -C '\(line)'", environment: environment)
        }
        #expect(try complete("defaults re") == "read\nread-type\nrename\n")
        #expect(try complete("defaults read com.") == "com.example.App\ncom.example.Other\n")
        #expect(try complete("defaults read com.example.App T") == "Theme\nTwo Words\n")
        #expect(try complete("defaults write com.example.App Theme -da") == "-data\n-date\n")
        #expect(try complete("defaults -currentHost read -format b") == "binary\n")
    }

    @Test(.enabled(if: executable("bash") != nil, "bash is not installed"))
    func bashParsesTheScript() throws {
        let bash = try #require(Self.executable("bash"))
        let (sandbox, environment) = try sandbox()
        let path = sandbox.directory.file("defaults.bash")
        _ = try shell(bash, "defaults completion bash > '\(path)' && bash -n '\(path)'", environment: environment)
    }

    @Test func theManualPageIsValidRoffWithEverySection() throws {
        let sandbox = try Sandbox()
        let result = try sandbox.run(["man"])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        let page = result.standardOutput
        #expect(page.hasPrefix(".TH DEFAULTS 1 "))
        for section in [
            "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "DOMAINS", "VALUES", "KEY PATHS", "BEYOND MACOS",
            "DIFFERENCES FROM MACOS",
            "ENVIRONMENT", "EXIT STATUS", "EXAMPLES", "SEE ALSO",
        ] {
            #expect(page.contains("\n.SH \(section)\n"), "\(section)")
        }
        for verb in [
            "read", "read\\-type", "write", "rename", "delete", "import", "export", "domains", "find",
            "watch", "explain", "completion", "man",
        ] {
            #expect(page.contains(".B defaults \(verb)"), "\(verb)")
        }
        guard Self.executable("groff") != nil else { return }  // rendering is checked where groff is installed
        let path = sandbox.directory.file("defaults.1")
        try page.write(toFile: path, atomically: true, encoding: .utf8)
        let rendered = try shell(
            "/bin/sh", "groff -man -Tutf8 -ww '\(path)' | col -b", environment: ProcessInfo.processInfo.environment)
        #expect(rendered.contains("DEFAULTS(1)"))
        #expect(rendered.contains("defaults watch [<domain> [<key>]]"))
    }
}
