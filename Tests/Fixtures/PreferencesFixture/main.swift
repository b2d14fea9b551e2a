// A small program the Preferences tests run as separate processes, in the environment they give it
// (PREFERENCES_HOME, PREFERENCES_SYSTEM_DIR, PREFERENCES_DOMAINS_DIR).
//
//   PreferencesFixture sample
//       Runs the ported NSUserDefaults sample (Sample.swift) on Preferences.standard.
//   PreferencesFixture read <key>…
//       Prints "<key> = <value>" for each key of Preferences.standard, as `defaults read` prints the value, or
//       "<key> is absent".
//   PreferencesFixture set <domain> <key> <value> [--no-sync]
//       Sets a string through Preferences(domain:), synchronizes, and prints "set <monotonic-ns>" with the time
//       just before the set. With --no-sync the value is written at exit instead.
//   PreferencesFixture memory
//       Sets, synchronizes and reads a key of in-memory preferences, and prints its value.
//   PreferencesFixture arguments <argument>…
//       Opts in to the argument domain with the arguments given and prints "<key> = <value>" for each of its keys,
//       sorted; a malformed argument list prints the error on standard error and exits with status 2.
import Glibc
import Preferences

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

func fail(_ message: String) -> Never {
    var text = "PreferencesFixture: \(message)\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "sample":
    runSample()

case "read":
    for key in arguments.dropFirst() {
        do {
            if let value = try Preferences.standard.value(forKey: key) {
                print("\(key) = \(value.defaultsDescription)")
            } else {
                print("\(key) is absent")
            }
        } catch {
            fail("\(error)")
        }
    }

case "set" where arguments.count >= 4:
    do {
        let preferences = try Preferences(domain: arguments[1])
        let start = monotonicNanoseconds()
        try preferences.setValue(.string(arguments[3]), forKey: arguments[2])
        if !arguments.contains("--no-sync") { try preferences.synchronizeThrowing() }
        print("set \(start)")
    } catch {
        fail("\(error)")
    }

case "memory":
    do {
        let preferences = try Preferences.inMemory(domain: "com.example.Memory")
        preferences.set("kept in memory", forKey: "Note")
        try preferences.synchronizeThrowing()
        print(preferences.string(forKey: "Note") ?? "absent")
    } catch {
        fail("\(error)")
    }

case "arguments":
    do {
        let preferences = try Preferences(arguments: Array(arguments.dropFirst()))
        let values = preferences.volatileDomain(forName: Preferences.argumentDomain)
        for key in values.keys.sorted() {
            let value = (try? preferences.value(forKey: key))??.defaultsDescription ?? "absent"
            print("\(key) = \(value)")
        }
    } catch {
        fail("\(error)")
    }

default:
    fail("usage: PreferencesFixture sample | read <key>… | set <domain> <key> <value> | memory | arguments <arg>…")
}
