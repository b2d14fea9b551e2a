// SPDX-License-Identifier: Apache-2.0
// Writes and reads settings with the real Foundation `UserDefaults`, so that the tests of `defaults migrate` and
// `Preferences(…migratingFrom:)` adopt files Foundation itself wrote (into `$XDG_CONFIG_HOME`, as it does on Linux).
//
//   FoundationDefaultsFixture write <suite>
//       Stores one value of every property-list type in the suite (the standard domain, named after this executable,
//       for `-standard`), plus "Global" = "everywhere" in the global domain, synchronizes, and prints "written".
//   FoundationDefaultsFixture read <suite> <key>
//       Prints the key's value as Foundation describes it, or "absent".
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())

func defaults(_ suite: String) -> UserDefaults {
    if suite == "-standard" { return .standard }
    guard let defaults = UserDefaults(suiteName: suite) else {
        FileHandle.standardError.write(Data("FoundationDefaultsFixture: not a suite name: \(suite)\n".utf8))
        exit(2)
    }
    return defaults
}

switch (arguments.first, arguments.count) {
case ("write", 2):
    let store = defaults(arguments[1])
    store.set("dark", forKey: "Theme")
    store.set(42, forKey: "Count")
    store.set(2.5, forKey: "Ratio")
    store.set(true, forKey: "Enabled")
    store.set(Date(timeIntervalSince1970: 1_700_000_000), forKey: "Since")
    store.set(Data([0, 1, 2, 255]), forKey: "Blob")
    store.set(["a", "b"], forKey: "List")
    store.set(["Width": 800, "Title": "Main"], forKey: "Window")
    store.setPersistentDomain(["Global": "everywhere"], forName: UserDefaults.globalDomain)
    guard store.synchronize() else {
        FileHandle.standardError.write(Data("FoundationDefaultsFixture: synchronize failed\n".utf8))
        exit(1)
    }
    print("written")
case ("read", 3):
    if let value = defaults(arguments[1]).object(forKey: arguments[2]) { print(value) } else { print("absent") }
default:
    FileHandle.standardError.write(Data("usage: FoundationDefaultsFixture write <suite> | read <suite> <key>\n".utf8))
    exit(2)
}
