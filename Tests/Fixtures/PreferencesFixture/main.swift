// SPDX-License-Identifier: Apache-2.0
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
//   PreferencesFixture increment <domain> <key> <count>
//       Adds 1 to an integer key <count> times with Preferences.update, and prints "done".
//   PreferencesFixture append <domain> <key> <prefix> <count>
//       Appends the tokens <prefix>-0 … <prefix>-<count-1> to an array key, each with Preferences.update followed by
//       synchronizeThrowing, and prints one line per token: "ack <token>" when both succeeded, "unknown <token>" when
//       either failed after the write may have been applied (outcomeUnknown, or a failed synchronize); a token whose
//       update failed without being applied (the daemon unavailable) is tried again after 20 ms.
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

case "increment" where arguments.count == 4:
    do {
        let preferences = try Preferences(domain: arguments[1])
        let counter = Preferences.Key<Int>(arguments[2], default: 0)
        for _ in 0..<(Int(arguments[3]) ?? 0) { try preferences.update(counter) { $0 += 1 } }
        try preferences.synchronizeThrowing()
        print("done")
    } catch {
        fail("\(error)")
    }

case "append" where arguments.count == 5:
    do {
        let preferences = try Preferences(domain: arguments[1])
        let key = arguments[2]
        var index = 0
        while index < (Int(arguments[4]) ?? 0) {
            let token = "\(arguments[3])-\(index)"
            do throws(PreferencesError) {
                try preferences.update(forKey: key) { stored in .array((stored?.arrayValue ?? []) + [.string(token)]) }
            } catch  where error.code == .outcomeUnknown {
                print("unknown \(token)")
                index += 1
                continue
            } catch  where error.code == .storeUnavailable {
                usleep(20_000)
                continue
            }
            do throws(PreferencesError) {
                try preferences.synchronizeThrowing()
                print("ack \(token)")
            } catch {
                print("unknown \(token)")
            }
            index += 1
        }
    } catch {
        fail("\(error)")
    }

default:
    fail(
        "usage: PreferencesFixture sample | read <key>… | set <domain> <key> <value> | memory | increment <domain> <key> <count> | "
            + "append <domain> <key> <prefix> <count> | arguments <arg>…")
}
