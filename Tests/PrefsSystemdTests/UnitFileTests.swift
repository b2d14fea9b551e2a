// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsTestSupport
import Testing

/// The unit files in `systemd/`, checked by systemd's own parser and against the process the fixture is.
///
/// No systemd runs as the service manager on the build machine, so the units are not started here: the parser
/// (`systemd-analyze verify --user`) checks every line, and the fixture runs under the memory protection
/// `MemoryDenyWriteExecute=yes` asks for.
@Suite struct UnitFileTests {
    /// `systemd/` in the repository: Tests/PrefsSystemdTests/UnitFileTests.swift → the repository root.
    static let unitDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("systemd").path

    @Test func unitsPassSystemdAnalyzeVerify() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-units")
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: directory.file("bin"), withIntermediateDirectories: true)
        try fileManager.createDirectory(atPath: directory.file("units"), withIntermediateDirectories: true)
        // The install step replaces @BINDIR@; verify checks that ExecStart= names an executable.
        try fileManager.copyItem(atPath: ChildProcess.fixture, toPath: directory.file("bin/prefsd"))
        let service = try String(contentsOfFile: Self.unitDirectory + "/prefsd.service", encoding: .utf8)
        #expect(service.contains("ExecStart=@BINDIR@/prefsd\n"))
        try service.replacingOccurrences(of: "@BINDIR@", with: directory.file("bin"))
            .write(toFile: directory.file("units/prefsd.service"), atomically: true, encoding: .utf8)
        try fileManager.copyItem(
            atPath: Self.unitDirectory + "/prefsd.socket", toPath: directory.file("units/prefsd.socket"))

        let result = try ChildProcess(
            "/usr/bin/systemd-analyze",
            [
                "verify", "--user", directory.file("units/prefsd.socket"), directory.file("units/prefsd.service"),
            ],
            environment: ["XDG_RUNTIME_DIR": directory.path]
        ).finish()
        // verify warns about unknown or malformed lines on stderr but still exits 0, so both must be clean.
        #expect(result.status == 0, "\(result)")
        #expect(result.standardError.isEmpty, "\(result)")
    }

    /// Options that a user manager applies only inside a user namespace of the service's own.
    static let needUserNamespace = [
        "ProtectClock=", "ProtectKernelModules=", "ProtectKernelLogs=", "ProtectKernelTunables=",
        "ProtectHostname=", "PrivateTmp=", "PrivateDevices=", "PrivateNetwork=", "PrivateIPC=", "PrivateMounts=",
        "ProtectHome=", "CapabilityBoundingSet=",
    ]

    @Test func serviceAsksForItsUserNamespace() throws {
        let service = try String(contentsOfFile: Self.unitDirectory + "/prefsd.service", encoding: .utf8)
        let lines = service.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        let needing = lines.filter { line in Self.needUserNamespace.contains { line.hasPrefix($0) } }
        #expect(!needing.isEmpty)
        // A user unit does not imply PrivateUsers=: without it these fail the start with status=218/CAPABILITIES.
        #expect(lines.contains("PrivateUsers=yes"), "\(needing) need PrivateUsers=yes in a user unit")
    }

    @Test func serviceIsRatedSafe() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-security")
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: directory.file("bin"), withIntermediateDirectories: true)
        try fileManager.copyItem(atPath: ChildProcess.fixture, toPath: directory.file("bin/prefsd"))
        let service = try String(contentsOfFile: Self.unitDirectory + "/prefsd.service", encoding: .utf8)
        try service.replacingOccurrences(of: "@BINDIR@", with: directory.file("bin"))
            .write(toFile: directory.file("prefsd.service"), atomically: true, encoding: .utf8)
        let result = try ChildProcess(
            "/usr/bin/systemd-analyze",
            ["security", "--offline=yes", "--user", "--no-pager", directory.file("prefsd.service")],
            environment: ["XDG_RUNTIME_DIR": directory.path]
        ).finish()
        let overall = result.standardOutput.split(separator: "\n").first { $0.contains("Overall exposure level") }
        let score = overall.flatMap { line in
            line.split(separator: " ").compactMap { Double($0) }.first
        }
        #expect(score != nil, "\(result)")
        // Offline, a user unit's User= counts as root (0.4); everything else prefsd can use is set.
        #expect((score ?? 10) <= 1.5, "\(overall ?? "")")
    }

    /// Whether the kernel has `PR_SET_MDWE` (Linux 6.3+), the prctl form of `MemoryDenyWriteExecute=`.
    static let kernelHasMemoryDenyWriteExecute: Bool = {
        let probe = "import ctypes, sys; sys.exit(ctypes.CDLL(None).prctl(65, 1, 0, 0, 0))"
        guard let result = try? ChildProcess("/usr/bin/python3", ["-c", probe]).finish(timeout: .seconds(10))
        else { return false }
        return result.status == 0
    }()

    @Test(.enabled(if: kernelHasMemoryDenyWriteExecute, "needs python3 and Linux 6.3+ (PR_SET_MDWE)"))
    func fixtureRunsWithoutWritableExecutableMemory() throws {
        // prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN) is kept across execve: the kernel then refuses any mapping that
        // is or becomes both writable and executable, as systemd's MemoryDenyWriteExecute=yes does. The Swift
        // runtime, Dispatch, libsystemd and ServiceLifecycle must not need one.
        let wrapper = """
            import ctypes, os, sys
            if ctypes.CDLL(None).prctl(65, 1, 0, 0, 0) != 0: sys.exit("PR_SET_MDWE failed")
            os.execv(sys.argv[1], sys.argv[1:])
            """
        let directory = try TemporaryDirectory(prefix: "prefs-mdwe")
        let notify = try UnixSocket.boundDatagram(at: directory.file("notify"))
        let child = try ChildProcess(
            "/usr/bin/python3", ["-c", wrapper, ChildProcess.fixture, "notify", "--stop-after-ms", "400"],
            environment: ["NOTIFY_SOCKET": directory.file("notify"), "WATCHDOG_USEC": "200000"])
        var texts: [String] = []
        while let text = try notify.receive(timeout: .seconds(10)) {
            texts.append(text)
            if text.hasPrefix("STOPPING=1") { break }
        }
        let result = child.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.hasSuffix("stopped\n"), "\(result)")
        #expect(texts.contains("READY=1") && texts.contains("WATCHDOG=1"), "\(texts)")
        #expect(texts.last == "STOPPING=1\nSTATUS=flushing 2 domains", "\(texts)")
    }
}
