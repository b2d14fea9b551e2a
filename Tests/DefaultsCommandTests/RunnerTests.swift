// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsCommandLine
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import Synchronization
import Testing

@testable import DefaultsArguments
@testable import DefaultsCommand

/// The runner in-process: one storage call per command, failures reported as macOS does, and real files with an
/// injected machine id and host name.
@Suite struct RunnerTests {
    static let app = DomainID(try! DomainName("com.example.App"))

    private func run(
        _ arguments: [String], storage: RecordingStorage, input: String = ""
    ) async -> (status: Int32, console: CapturingConsole) {
        let console = CapturingConsole(input: input)
        let environment = DefaultsEnvironment(
            variables: ["PREFERENCES_HOME": "/nonexistent"], machineID: nil, currentDirectory: "/", hostName: "box")
        let runner = CommandRunner(console: console, environment: environment) { _, _, _ in storage }
        return (await runner.run(arguments), console)
    }

    @Test func aBatchWriteIsOneChangeAndOneSynchronize() async throws {
        let storage = RecordingStorage(domains: [Self.app: ["List": ["a"]]])
        let (status, console) = await run(
            [
                "write", "com.example.App", "A", "1", "--", "List", "-array-add", "b", "--", "-keypath", "W.H", "-int",
                "2",
            ],
            storage: storage)
        #expect(status == 0)
        #expect(console.error == "")
        #expect(storage.calls == ["update com.example.App A,List,W", "synchronize"])
        #expect(try storage.values(of: Self.app) == ["A": "1", "List": ["a", "b"], "W": ["H": 2]])
    }

    @Test func theStorageIsOpenedWithTheDomainACommandReadsFirst() async {
        let storage = RecordingStorage(domains: [Self.app: ["A": "1"]])
        let opened = Mutex<[FirstRead?]>([])
        let environment = DefaultsEnvironment(
            variables: ["PREFERENCES_HOME": "/nonexistent"], machineID: nil, currentDirectory: "/", hostName: "box")
        let runner = CommandRunner(console: CapturingConsole(input: ""), environment: environment) {
            _, _, firstRead in
            opened.withLock { $0.append(firstRead) }
            return storage
        }
        for arguments in [
            ["read", "com.example.App", "A"], ["read-type", "com.example.App", "A"],
            ["write", "com.example.App", "B", "2"], ["domains"],
        ] {
            _ = await runner.run(arguments)
        }
        // prefsd's connection sends that read with its hello (`read D k` asks for the key alone); a command that reads
        // no one domain names none.
        #expect(
            opened.withLock { $0 } == [
                FirstRead(Self.app, key: "A"), FirstRead(Self.app), FirstRead(Self.app), nil,
            ])
    }

    @Test func aWriteThatChangesNothingLeavesTheStorageAlone() async {
        let storage = RecordingStorage(domains: [Self.app: ["A": "1", "List": ["a"]]])
        #expect(await run(["write", "com.example.App", "A", "1"], storage: storage).status == 0)
        #expect(await run(["write", "com.example.App", "{ A = 1; List = (a); }"], storage: storage).status == 0)
        #expect(await run(["import", "com.example.App", "-"], storage: storage, input: "{ A = 1; }").status == 0)
        #expect(await run(["write", "com.example.App", "List", "-dict-add"], storage: storage).status == 1)
        #expect(storage.calls == [])
        #expect(await run(["write", "com.example.App", "A", "2"], storage: storage).status == 0)
        #expect(storage.calls == ["update com.example.App A", "synchronize"])
    }

    @Test func importAndRenameAreOneChangeEach() async {
        let storage = RecordingStorage(domains: [Self.app: ["Old": 1]])
        #expect(
            await run(["import", "com.example.App", "-"], storage: storage, input: "{ x = 1; y = 2; }").status == 0)
        #expect(await run(["rename", "com.example.App", "Old", "New"], storage: storage).status == 0)
        #expect(
            storage.calls == [
                "update com.example.App x,y", "synchronize", "update com.example.App New,Old", "synchronize",
            ])
    }

    @Test func aFailedSynchronizeIsReportedWithMacOSWordsAndTheReason() async {
        let storage = RecordingStorage(failsToSynchronize: true)
        var (status, console) = await run(["write", "com.example.App", "A", "1"], storage: storage)
        #expect(status == 1)
        #expect(console.error == "Could not write domain com.example.App; exiting\ndefaults: disk full\n")
        storage.state.withLock { $0.domains[Self.app] = ["Old": 1] }
        (status, console) = await run(["rename", "-g", "Old", "New"], storage: storage)
        #expect(status == 1)
        #expect(console.error == "Key Old does not exist in domain Apple Global Domain; leaving defaults unchanged\n")
        (status, console) = await run(["rename", "com.example.App", "Old", "New"], storage: storage)
        #expect(console.error == "Failed to write domain com.example.App\ndefaults: disk full\n")
    }

    @Test func warningsArePrintedUnlessTheErrorNamesTheSameFile() async {
        let storage = RecordingStorage(failsToSynchronize: true)
        storage.state.withLock {
            $0.diagnostics = [
                StoreDiagnostic(
                    severity: .warning, domain: nil,
                    error: PrefsStoreError(.corruptFile, "other", path: "/prefs/Other.plist")),
                StoreDiagnostic(
                    severity: .warning, domain: nil,
                    error: PrefsStoreError(.corruptFile, "same", path: "/prefs/D.plist")),
            ]
        }
        let (status, console) = await run(["write", "com.example.App", "A", "1"], storage: storage)
        #expect(status == 1)
        #expect(
            console.error
                == "defaults: warning: other\nCould not write domain com.example.App; exiting\ndefaults: disk full\n")
    }

    /// The completion scripts add -g, -globalDomain and NSGlobalDomain themselves: the candidates must not repeat it.
    @Test func domainCandidatesLeaveOutTheGlobalDomain() async {
        let storage = RecordingStorage(domains: [
            Self.app: ["A": "1"], DomainID(.global): ["B": "2"], DomainID(try! DomainName("a.first")): ["C": "3"],
        ])
        let (status, console) = await run(["__complete", "domains"], storage: storage)
        #expect(status == 0)
        #expect(console.output == "a.first\ncom.example.App\n")
        #expect(console.error == "")
    }

    @Test func versionPrintsOneLine() async {
        let (status, console) = await run(["--version"], storage: RecordingStorage())
        #expect(status == 0)
        #expect(console.output == "defaults \(PreferencesVersion.current)\n")
        #expect(console.error == "")
    }

    @Test func aUsageErrorPrintsTheHelpToStandardOutput() async {
        let (status, console) = await run(["read-type", "D"], storage: RecordingStorage())
        #expect(status == 255)
        #expect(console.output == HelpText.text)
        #expect(console.error == "defaults: a key is missing\n")
    }

    @Test func byHostFilesUseTheInjectedMachineIDAndHostName() async throws {
        let directory = try TemporaryDirectory(prefix: "defaults-runner")
        let machineID = "00112233445566778899aabbccddeeff"
        let environment = DefaultsEnvironment(
            variables: ["PREFERENCES_HOME": directory.path], machineID: machineID, currentDirectory: directory.path,
            hostName: "box")
        let console = CapturingConsole()
        let runner = CommandRunner(console: console, environment: environment)
        #expect(await runner.run(["-currentHost", "write", "com.example.App", "K", "v"]) == 0)
        #expect(await runner.run(["-host", "box", "read", "com.example.App", "K"]) == 0)
        #expect(await runner.run(["-host", "localhost", "read-type", "com.example.App", "K"]) == 0)
        #expect(await runner.run(["-host", "other", "read", "com.example.App"]) == 1)
        #expect(console.output == "v\nType is string\n")
        #expect(
            console.error
                == "defaults: unknown host 'other': -host takes this machine's host name (box) or a machine id "
                + "of 32 hexadecimal digits\n")
        let store = PreferencesStore(
            paths: StorePaths(
                preferencesDirectory: directory.path, systemDirectory: nil, shippedDirectory: nil, machineID: machineID),
            configuration: StoreConfiguration(watchesFiles: false))
        #expect(store.value(forKey: "K", in: DomainID(try DomainName("com.example.App"), scope: .byHost)) == "v")
        #expect(
            try store.path(for: DomainID(try DomainName("com.example.App"), scope: .byHost)).hasSuffix(
                "/ByHost/com.example.App.\(machineID).plist"))
    }

    @Test func withoutAMachineIDByHostDomainsFailClearly() async throws {
        let directory = try TemporaryDirectory(prefix: "defaults-runner")
        let environment = DefaultsEnvironment(
            variables: ["PREFERENCES_HOME": directory.path], machineID: nil, currentDirectory: nil, hostName: nil)
        let console = CapturingConsole()
        let runner = CommandRunner(console: console, environment: environment)
        #expect(await runner.run(["-currentHost", "write", "com.example.App", "K", "v"]) == 1)
        #expect(console.error.hasPrefix("defaults: by-host domain com.example.App needs the machine id"))
        #expect(await runner.run(["printHostIdentifier"]) == 1)
        #expect(await runner.run(["read", "relative/path"]) == 1)
        #expect(console.error.hasSuffix("defaults: cannot resolve relative/path: the working directory is unknown\n"))
    }
}
