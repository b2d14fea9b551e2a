// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

/// A private set of preference directories and the built `defaults` pointed at them.
///
/// `PREFERENCES_HOME`, `PREFERENCES_SYSTEM_DIR`, `PREFERENCES_DOMAINS_DIR`, `PREFSD_SOCKET`, `HOME` and
/// `XDG_RUNTIME_DIR` all point into a fresh temporary directory, so that no test touches the real user's files.
struct Sandbox {
    let directory: TemporaryDirectory
    let defaults = BuiltProduct("defaults")

    init() throws {
        directory = try TemporaryDirectory(prefix: "defaults-e2e")
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }

    /// The user's runtime directory, `$XDG_RUNTIME_DIR`.
    var runtime: String { directory.path + "/runtime" }

    var preferences: String { directory.path + "/prefs" }
    var system: String { directory.path + "/system" }
    var shipped: String { directory.path + "/shipped" }

    var environment: [String: String] {
        [
            "PREFERENCES_HOME": preferences,
            "PREFERENCES_SYSTEM_DIR": system,
            "PREFERENCES_DOMAINS_DIR": shipped,
            "PREFSD_SOCKET": directory.path + "/prefsd.socket",
            "HOME": directory.path,
            "XDG_CONFIG_HOME": directory.path + "/config",
            "XDG_RUNTIME_DIR": runtime,
        ]
    }

    /// This machine's id, which names by-host files.
    static var machineID: String {
        let text = (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `defaults` with the arguments.
    @discardableResult
    func run(
        _ arguments: [String], input: String? = nil, in workingDirectory: String? = nil
    ) throws
        -> BuiltProduct.Result
    {
        try defaults.run(
            arguments, input: input.map { Array($0.utf8) }, environment: environment, in: workingDirectory)
    }

    /// Runs `defaults` and expects it to succeed silently on both streams.
    func succeed(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try run(arguments)
        #expect(result.status == 0, "\(arguments): \(result)", sourceLocation: sourceLocation)
        #expect(result.standardOutput == "", "\(arguments)", sourceLocation: sourceLocation)
        #expect(result.standardError == "", "\(arguments)", sourceLocation: sourceLocation)
    }

    /// Writes a file under the sandbox (creating directories), such as `prefs/com.example.App.plist`.
    func write(_ relativePath: String, _ contents: String) throws {
        let path = directory.path + "/" + relativePath
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        // Files written just now count as being edited: make them old, as a settled file is.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: path)
    }

    /// Writes a domain file in OpenStep text: `domain("com.example.App", "{ a = 1; }")`.
    func domain(_ name: String, _ openStep: String, directory subdirectory: String = "prefs") throws {
        let fileName = name == "NSGlobalDomain" ? ".GlobalPreferences" : name
        try write("\(subdirectory)/\(fileName).plist", openStep)
    }

    /// The contents of a file under the sandbox, or `nil` when it does not exist.
    func contents(_ relativePath: String) -> String? {
        try? String(contentsOfFile: directory.path + "/" + relativePath, encoding: .utf8)
    }

    /// Whether a file exists under the sandbox.
    func exists(_ relativePath: String) -> Bool {
        FileManager.default.fileExists(atPath: directory.path + "/" + relativePath)
    }

    /// The names in a directory of the sandbox.
    func list(_ relativePath: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path + "/" + relativePath)) ?? []).sorted()
    }
}

/// Checks a finished run: exact standard output, standard error and exit status.
func expectRun(
    _ result: BuiltProduct.Result, status: Int32 = 0, stdout: String = "", stderr: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(result.status == status, "exit status\n\(result)", sourceLocation: sourceLocation)
    #expect(result.standardOutput == stdout, "standard output", sourceLocation: sourceLocation)
    #expect(result.standardError == stderr, "standard error", sourceLocation: sourceLocation)
}
