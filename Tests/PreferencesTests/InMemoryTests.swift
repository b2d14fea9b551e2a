// SPDX-License-Identifier: Apache-2.0
import Foundation
import Preferences
import PrefsTestSupport
import Testing

/// In-memory mode, for applications' own tests: the same semantics, and no disk at all.
@Suite struct InMemoryTests {
    @Test func instancesOfOneStorageShareItAndStoragesAreIsolated() throws {
        let storage = PreferencesStorage.inMemory()
        let app = try Preferences(domain: "com.example.App", storage: storage)
        let tool = try Preferences(domain: "com.example.Tool", storage: storage)
        app.set(1, forKey: "n")
        tool.setPersistentDomain(["shared": true], forName: "com.example.App")
        #expect(app.bool(forKey: "shared"))
        #expect(app.object(forKey: "n") == nil)  // replaced by the whole-domain write
        let elsewhere = try Preferences(domain: "com.example.App", storage: .inMemory())
        #expect(elsewhere.object(forKey: "shared") == nil)
        #expect(storage.isInMemory)
        #expect(storage.description == "in memory")
    }

    @Test func everyLayerCanBeFilledForTests() throws {
        let storage = PreferencesStorage.inMemory()
        let prefs = try Preferences(domain: "com.example.App", storage: storage)
        try storage.setContents(["Policy": "strict"], ofDomain: "com.example.App", scope: .forced)
        try storage.setContents(["Theme": "system"], ofDomain: "com.example.App", scope: .system)
        try storage.setContents(["Language": "en"], ofDomain: "NSGlobalDomain")
        #expect(prefs.objectIsForced(forKey: "Policy"))
        #expect(throws: PreferencesError.self) { try prefs.setValue("lax", forKey: "Policy") }
        #expect(prefs.string(forKey: "Theme") == "system")
        #expect(prefs.string(forKey: "Language") == "en")
        let source = prefs.source(forKey: "Policy")
        #expect(source.winner?.layer == .domain("com.example.App", .forced))
        #expect(source.winner?.path == nil)
        #expect(source.description == "Policy = strict from forced com.example.App")
    }

    @Test func synchronizeSucceedsWithoutAnyFile() throws {
        let prefs = try Preferences.inMemory()
        prefs.set("x", forKey: "k")
        try prefs.synchronizeThrowing()
        #expect(prefs.synchronize())
        #expect(prefs.persistentDomain(forName: "com.example.App")?["k"] as? String == "x")
    }

    @Test func filesStoragesRefuseFilledContents() throws {
        let fixture = try FacadeFixture()
        do {
            try fixture.storage.setContents(["k": 1], ofDomain: "com.example.App")
            Issue.record("a files storage took contents")
        } catch {
            #expect(error.code == .storeUnavailable)
        }
        #expect(!fixture.storage.isInMemory)
        #expect(fixture.storage.description == "files in \(fixture.preferencesDirectory)")
    }

    /// Runs a program under strace and returns the system calls that create, change or watch files.
    private func fileChangingCalls(_ arguments: [String], environment: [String: String]) throws -> [String] {
        let product = BuiltProduct("PreferencesFixture")
        let strace = "/usr/bin/strace"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: strace)
        process.arguments =
            [
                "-f", "-qq", "-e",
                "trace=openat,open,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,flock,"
                    + "inotify_init1,inotify_add_watch,fsync",
                "-o", "/dev/stderr", product.path,
            ] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let errors = Pipe.closingOnExec()
        process.standardError = errors
        process.standardOutput = Pipe.closingOnExec()
        try process.run()
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return output.split(separator: "\n").map(String.init).filter { line in
            !line.contains("O_RDONLY") && !line.contains("ENOENT") && !line.contains("+++")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")))
    func aProgramInMemoryModeMakesNoFileSystemChange() throws {
        let fixture = try FacadeFixture()
        let memory = try BuiltProduct("PreferencesFixture").run(["memory"], environment: fixture.environment)
        #expect(memory.status == 0)
        #expect(memory.standardOutput == "kept in memory\n")
        #expect(memory.standardError == "")
        #expect(try fileChangingCalls(["memory"], environment: fixture.environment) == [])
        // The same trace of a program on files shows its writes: the check above can see them.
        let files = try fileChangingCalls(["set", "com.example.App", "k", "v"], environment: fixture.environment)
        #expect(files.contains { $0.contains("rename") })
        #expect(files.contains { $0.contains("inotify_init1") })
        #expect(!FileManager.default.fileExists(atPath: fixture.path("com.example.Memory", .user)))
    }
}
