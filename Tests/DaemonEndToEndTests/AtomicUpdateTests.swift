// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsAccess
import PrefsPlist
import PrefsStore
import PrefsTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// No update lost: real `defaults` and `Preferences` processes racing on one domain, on the files and through a real
/// prefsd, and a prefsd killed in the middle.
@Suite("atomic read-modify-write", .serialized)
struct AtomicUpdateTests {
    static let defaults = BuiltProduct("defaults").path
    static let fixture = BuiltProduct("PreferencesFixture").path

    /// The way the processes reach the preferences.
    enum Route: String, CaseIterable, CustomTestStringConvertible {
        case files, daemon
        var testDescription: String { rawValue }
    }

    /// A read-modify-write verb of `defaults`, as process `index` runs it.
    enum Verb: String, CaseIterable, CustomTestStringConvertible {
        case arrayAdd, dictAdd, keyPath
        var testDescription: String { rawValue }

        func arguments(_ index: Int) -> [String] {
            switch self {
            case .arrayAdd: ["write", "com.example.Race", "List", "-array-add", "v\(index)"]
            case .dictAdd: ["write", "com.example.Race", "Map", "-dict-add", "k\(index)", "-int", "\(index)"]
            case .keyPath: ["write", "com.example.Race", "-keypath", "Window.Panes.p\(index)", "-int", "\(index)"]
            }
        }

        /// What the domain holds once every process ran.
        func expected(_ count: Int) -> PlistDictionary {
            switch self {
            case .arrayAdd:
                return ["List": .array((0..<count).map { .string("v\($0)") })]
            case .dictAdd:
                var map: PlistDictionary = [:]
                for index in 0..<count { map["k\(index)"] = .integer(PlistInteger(Int64(index))) }
                return ["Map": .dictionary(map)]
            case .keyPath:
                var panes: PlistDictionary = [:]
                for index in 0..<count { panes["p\(index)"] = .integer(PlistInteger(Int64(index))) }
                return ["Window": ["Panes": .dictionary(panes)]]
            }
        }
    }

    /// The home, the daemon when the route takes one, and the environment that chooses the route.
    struct Setup {
        let home: DaemonHome
        let daemon: DaemonProcess?
        let environment: [String: String]

        init(_ route: Route) throws {
            home = try DaemonHome()
            switch route {
            case .files:
                daemon = nil
                environment = home.environment.merging(["PREFERENCES_DAEMON": "off"]) { _, new in new }
            case .daemon:
                let daemon = try DaemonProcess(home)
                try daemon.waitUntilServing(home)
                self.daemon = daemon
                environment = home.environment.merging(["PREFERENCES_DAEMON": "on"]) { _, new in new }
            }
        }

        /// Stops the daemon cleanly (it flushes), and returns the domain's file contents.
        func finish() throws -> PlistDictionary? {
            if let daemon {
                daemon.signal(SIGTERM)
                #expect(daemon.finish() == 0, "prefsd: \(daemon.standardError)")
            }
            return try home.storedValues("com.example.Race")
        }
    }

    /// Starts the processes at once and waits for them all; each must succeed.
    static func race(
        _ count: Int, _ executable: String, environment: [String: String], home: DaemonHome,
        arguments: (Int) -> [String]
    ) throws -> [DaemonProcess] {
        let processes = try (0..<count).map { index in
            try DaemonProcess(home, executable: executable, arguments: arguments(index), environment: environment)
        }
        for (index, process) in processes.enumerated() {
            let status = process.finish(timeout: .seconds(120))
            #expect(status == 0, "process \(index) \(arguments(index)): \(process.standardError)")
        }
        return processes
    }

    @Test(
        "concurrent read-modify-write verbs of defaults keep every change",
        arguments: Route.allCases, [30, 200])
    func concurrentVerbsKeepEveryChange(route: Route, count: Int) throws {
        for verb in Verb.allCases {
            let setup = try Setup(route)
            _ = try Self.race(
                count, Self.defaults, environment: setup.environment, home: setup.home, arguments: verb.arguments)
            var stored = try setup.finish() ?? [:]
            // Processes append in the order they win; the elements, not their order, must all be there.
            if verb == .arrayAdd, case .array(let list)? = stored["List"] {
                stored["List"] = .array(list.sorted { "\($0)" < "\($1)" })
                #expect(list.count == count, "\(route) \(verb): \(list.count) of \(count) elements")
            }
            var expected = verb.expected(count)
            if case .array(let list)? = expected["List"] {
                expected["List"] = .array(list.sorted { "\($0)" < "\($1)" })
            }
            #expect(stored == expected, "\(route) \(verb) with \(count) processes")
        }
    }

    @Test(
        "30 processes × 100 Preferences.update increments of one counter end at exactly 3,000",
        arguments: Route.allCases)
    func incrementsFromManyProcessesAllCount(route: Route) throws {
        let setup = try Setup(route)
        let processes = try Self.race(30, Self.fixture, environment: setup.environment, home: setup.home) { _ in
            ["increment", "com.example.Race", "Count", "100"]
        }
        for process in processes { #expect(process.standardOutput == "done\n") }
        #expect(try setup.finish()?["Count"] == 3000)
    }

    @Test("prefsd killed and restarted twice during appends: every acknowledged one is there once, and no other")
    func acknowledgedUpdatesSurviveADaemonKilledMidway() throws {
        let home = try DaemonHome()
        var daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let environment = home.environment.merging(["PREFERENCES_DAEMON": "on"]) { _, new in new }
        let writers = try (0..<10).map { index in
            try DaemonProcess(
                home, executable: Self.fixture, arguments: ["append", "com.example.Race", "Tokens", "w\(index)", "60"],
                environment: environment)
        }
        for _ in 0..<2 {
            usleep(300_000)
            daemon.signalDaemon(SIGKILL)
            _ = daemon.finish()
            usleep(100_000)
            daemon = try DaemonProcess(home)
            try daemon.waitUntilServing(home)
        }
        var acknowledged: [String] = []
        var unknown: Set<String> = []
        for writer in writers {
            #expect(writer.finish(timeout: .seconds(120)) == 0, "writer: \(writer.standardError)")
            for line in writer.standardOutput.split(separator: "\n") {
                let parts = line.split(separator: " ")
                if parts.first == "ack" { acknowledged.append(String(parts[1])) }
                if parts.first == "unknown" { unknown.insert(String(parts[1])) }
            }
        }
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
        let tokens = (try home.storedValues("com.example.Race")?["Tokens"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(acknowledged.count + unknown.count == 600, "every token was either acknowledged or reported")
        #expect(Set(tokens).count == tokens.count, "a token was applied twice")
        for token in acknowledged { #expect(tokens.contains(token), "acknowledged \(token) was lost") }
        let known = Set(acknowledged).union(unknown)
        for token in tokens { #expect(known.contains(token), "\(token) appeared without being written") }
    }

    @Test("a write whose answer never comes is reported as outcomeUnknown, and may indeed have been applied")
    func aLostAnswerIsReportedAsUnknown() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let access = DaemonAccess(socketPath: home.socketPath, clientName: "test", timeout: .milliseconds(500))
        let domain = DomainID(try DomainName("com.example.Race"))
        try access.setValue(1, forKey: "Count", in: domain)
        try daemon.stopDaemon()
        do {
            try access.setValue(2, forKey: "Count", in: domain)
            Issue.record("a write without an answer succeeded")
        } catch {
            #expect(error.code == .outcomeUnknown, "\(error)")
        }
        daemon.signalDaemon(SIGCONT)
        // The stopped daemon had the whole request: it applies it once it runs again, and no retry doubled it.
        #expect(try access.values(of: domain)?["Count"] == 2)
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }
}
