// SPDX-License-Identifier: Apache-2.0
// A small command-line program the PrefsStore tests run as separate processes.
//
//   PrefsStoreFixture set <prefs-dir> <domain> <key> <value> [--sync] [--delay-ms N]
//       Sets a string and exits normally: without --sync, the exit handler writes it.
//   PrefsStoreFixture churn <prefs-dir> <domain> <prefix>
//       Sets <prefix>-0, <prefix>-1, … forever, synchronizing each and printing "synced <n>" after it.
//   PrefsStoreFixture serve <prefs-dir> [--delay-ms N]
//       Reads commands from standard input, one per line, and answers each with a line:
//         watch <domain>                  → "ok"; then "event <domain> <key> <value|-> <origin> <monotonic-ns>"
//         set <domain> <key> <value>      → "ok"
//         remove <domain> <key>           → "ok"
//         get <domain> <key>              → "value <value>" or "absent"
//         sync                            → "ok" or "error <message>"
//         quit                            → exits normally (pending changes are written by the exit handler)
//   PrefsStoreFixture exhaust-inotify
//       Opens inotify instances until the kernel refuses one (its descriptor limit raised to the hard limit first),
//       prints "exhausted <count> <errno>", and holds them until standard input ends.
import Glibc
import PrefsPlist
import PrefsStore

func output(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let count = write(1, bytes.baseAddress! + offset, bytes.count - offset)
            if count <= 0 { return }
            offset += count
        }
    }
}

func fail(_ message: String) -> Never {
    output("error \(message)")
    exit(2)
}

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

func text(of value: PlistValue?) -> String {
    switch value {
    case nil: "-"
    case .string(let string)?: string
    case let value?: value.defaultsDescription
    }
}

func openStore(_ directory: String, options: [String]) -> PreferencesStore {
    var delay = Duration.seconds(1)
    if let index = options.firstIndex(of: "--delay-ms"), index + 1 < options.count,
        let milliseconds = Int(options[index + 1])
    {
        delay = .milliseconds(milliseconds)
    }
    let paths = StorePaths(
        preferencesDirectory: directory, systemDirectory: nil, shippedDirectory: nil,
        machineID: StorePaths.systemMachineID())
    // One-shot commands do not watch files, as a command-line tool would not: only `serve` observes.
    let configuration = StoreConfiguration(flushDelay: delay, watchesFiles: options.first == "serve")
    return PreferencesStore(paths: paths, configuration: configuration)
}

func domain(_ name: String) -> DomainID {
    do {
        return DomainID(try DomainName(name))
    } catch {
        fail("\(error)")
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "exhaust-inotify" {
    // The descriptor limit must not be what stops it: only the per-user limit of instances should.
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    var instances: [Int32] = []
    var code: Int32 = 0
    while true {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        if descriptor < 0 {
            code = errno
            break
        }
        instances.append(descriptor)
    }
    output("exhausted \(instances.count) \(code)")
    while readLine() != nil {}
    for descriptor in instances { close(descriptor) }
    exit(0)
}
guard arguments.count >= 2 else { fail("usage: PrefsStoreFixture set|churn|serve <prefs-dir> …") }
let command = arguments[0]
let store = openStore(arguments[1], options: arguments)

switch command {
case "set":
    guard arguments.count >= 5 else { fail("usage: set <prefs-dir> <domain> <key> <value> [--sync]") }
    do {
        try store.set(.string(arguments[4]), forKey: arguments[3], in: domain(arguments[2]))
        if arguments.contains("--sync") { try store.synchronize() }
    } catch {
        fail("\(error)")
    }
    exit(0)

case "churn":
    guard arguments.count >= 4 else { fail("usage: churn <prefs-dir> <domain> <prefix>") }
    let target = domain(arguments[2])
    var counter = 0
    while true {
        do {
            try store.set(.integer(PlistInteger(Int64(counter))), forKey: "\(arguments[3])-\(counter)", in: target)
            try store.synchronize()
        } catch {
            fail("\(error)")
        }
        output("synced \(counter)")
        counter += 1
    }

case "serve":
    var tokens: [ObservationToken] = []
    output("ready")
    while let line = readLine() {
        let words = line.split(separator: " ", maxSplits: 3).map(String.init)
        guard let verb = words.first else { continue }
        do {
            switch verb {
            case "watch" where words.count == 2:
                let target = domain(words[1])
                tokens.append(
                    store.observe(.domain(target)) { events in
                        let now = monotonicNanoseconds()
                        for event in events {
                            output(
                                "event \(event.domain) \(event.key) \(text(of: event.newValue)) \(event.origin) \(now)")
                        }
                    })
                output("ok")
            case "set" where words.count == 4:
                try store.set(.string(words[3]), forKey: words[2], in: domain(words[1]))
                output("ok")
            case "remove" where words.count == 3:
                try store.set(nil, forKey: words[2], in: domain(words[1]))
                output("ok")
            case "get" where words.count == 3:
                let value = store.value(forKey: words[2], in: domain(words[1]))
                output(value.map { "value \(text(of: $0))" } ?? "absent")
            case "sync":
                try store.synchronize()
                output("ok")
            case "quit":
                exit(0)
            default:
                output("error unknown command: \(line)")
            }
        } catch {
            output("error \(error)")
        }
    }
    exit(0)

default:
    fail("unknown command \(command)")
}
