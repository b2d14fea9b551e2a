import Foundation
import Preferences
import PrefsPlist
import PrefsTestSupport
import PrefsWire
import Synchronization
import Testing

@Suite("Preferences through prefsd")
struct PreferencesThroughDaemonTests {
    /// Waits until `condition` holds, up to five seconds.
    func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            usleep(2_000)
        }
        return true
    }

    @Test("two caches on one daemon: read-your-writes, the other sees old and new value, synchronize is durable")
    func coherentCaches() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let domains = DaemonProcess.repository + "/Domains"
        // Two storage values: two caches, as two processes would have.
        let first = try Preferences(
            domain: "com.example.app", storage: .daemon(socketPath: home.socketPath, domains: domains))
        let second = try Preferences(
            domain: "com.example.app", storage: .daemon(socketPath: home.socketPath, domains: domains))
        #expect(first.string(forKey: "AppleLocale") == "en_US")

        let seen = Mutex<[String?]>([])
        let observation = second.observe(forKey: "Theme") { value in
            seen.withLock { $0.append(value?.stringValue) }
        }
        first.set("light", forKey: "Theme")
        #expect(first.string(forKey: "Theme") == "light")
        #expect(eventually { second.string(forKey: "Theme") == "light" })
        first.set("dark", forKey: "Theme")
        #expect(first.string(forKey: "Theme") == "dark")
        #expect(eventually { seen.withLock { $0 } == ["light", "dark"] })
        second.removeObject(forKey: "Theme")
        #expect(eventually { first.string(forKey: "Theme") == nil })
        first.set(42, forKey: "Answer")
        #expect(first.synchronize())
        #expect(try home.storedValues("com.example.app") == ["Answer": 42])
        _ = observation

        let writeThroughDaemonAgain = try Preferences(
            domain: "com.example.app", storage: .daemon(socketPath: home.socketPath, domains: domains))
        #expect(writeThroughDaemonAgain.integer(forKey: "Answer") == 42)
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    @Test("a cache that only reads follows a restarted daemon")
    func restartedDaemon() throws {
        let home = try DaemonHome()
        var daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let reader = try Preferences(
            domain: "com.example.app", storage: .daemon(socketPath: home.socketPath, diagnostics: { _ in }))
        let writer = try Preferences(
            domain: "com.example.app", storage: .daemon(socketPath: home.socketPath, diagnostics: { _ in }))
        writer.set("before", forKey: "State")
        #expect(eventually { reader.string(forKey: "State") == "before" })
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
        daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let other = try WireTestConnection(path: home.socketPath)
        try other.hello()
        // The reader never writes: it resubscribes by itself and sees the new daemon's changes.
        #expect(
            eventually {
                (try? other.call(
                    .set(WireDomain("com.example.app"), key: "State", value: "after", expectedVersion: nil))) != nil
                    && reader.string(forKey: "State") == "after"
            })
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    @Test("two threads racing on one key with the daemon's echoes: no thread reads an older value after its own write")
    func localWritesWinOverStaleEchoes() throws {
        let home = try DaemonHome()
        let daemon = try DaemonProcess(home)
        try daemon.waitUntilServing(home)
        let prefs = try Preferences(
            domain: "com.example.app", storage: .daemon(socketPath: home.socketPath, diagnostics: { _ in }))
        #expect(prefs.object(forKey: "Race") == nil)

        // Each thread increments one counter through the daemon's compare-and-set, so the counter's values follow
        // the daemon's order of the writes; the daemon's echo of every write comes back on the subscription, on the
        // cache's reader thread. After its own increment to n, a thread must read n or more, never less.
        let threads = 2
        let increments = 300
        let stale = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for _ in 0..<increments {
                let committed: Int
                do {
                    let value = try prefs.update(forKey: "Race") { old in
                        guard case .integer(let count)? = old else { return 1 }
                        return .integer(PlistInteger((count.int64Value ?? 0) + 1))
                    }
                    guard case .integer(let count)? = value, let number = count.int64Value else {
                        failures.withLock { $0.append("update returned \(String(describing: value))") }
                        return
                    }
                    committed = Int(number)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                    return
                }
                let read = prefs.integer(forKey: "Race")
                if read < committed {
                    stale.withLock { $0.append("thread \(thread) wrote \(committed), read \(read)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
        let found = stale.withLock { $0 }
        #expect(found.isEmpty, "\(found.count) reads went back in time, such as \(found.prefix(5))")
        #expect(eventually { prefs.integer(forKey: "Race") == threads * increments })
        daemon.signal(SIGTERM)
        #expect(daemon.finish() == 0)
    }

    @Test("forced to the daemon while it does not run: reads see nothing, synchronize reports the failure")
    func unavailableDaemon() throws {
        let home = try DaemonHome()
        let errors = Mutex<[String]>([])
        let preferences = try Preferences(
            domain: "com.example.app",
            storage: .daemon(
                socketPath: home.socketPath, diagnostics: { error in errors.withLock { $0.append("\(error)") } }))
        #expect(preferences.string(forKey: "Theme") == nil)
        preferences.set("dark", forKey: "Theme")
        #expect(preferences.string(forKey: "Theme") == nil)
        #expect(!preferences.synchronize())
        #expect(errors.withLock { $0 }.contains { $0.contains("prefsd") })
    }
}
