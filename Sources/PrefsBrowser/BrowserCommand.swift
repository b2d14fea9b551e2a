// SPDX-License-Identifier: Apache-2.0
import PrefsAccess
import PrefsCommandLine
import PrefsPOSIX
import PrefsStore
import Synchronization

/// `defaults browse [domain]`: the program of the `defaults-browse` executable, which `defaults browse` runs.
package enum BrowserCommand {
    /// How often the loop looks for other processes' changes while no key is pressed: a change shows within this
    /// and the store's own delivery (inotify, or prefsd's subscription).
    static let tick = 40

    /// Runs the browser and returns the exit status: 0, 1 when the terminal or the preferences cannot be used, 64 for a
    /// usage error.
    /// - Parameter arguments: The arguments after the program name (`browse` itself may come first).
    package static func main(arguments: [String]) -> Int32 {
        var arguments = arguments
        if arguments.first == "browse" { arguments.removeFirst() }
        if arguments.contains(where: { $0 == "-h" || $0 == "-help" || $0 == "--help" }) {
            print(usage, terminator: "")
            return 0
        }
        guard arguments.count <= 1, arguments.first.map({ $0 == "-g" || !$0.hasPrefix("-") }) ?? true else {
            POSIX.writeToStandardError(
                "defaults browse: takes at most one domain, not \(arguments.joined(separator: " "))\n" + usage)
            return 64
        }
        var domain: DomainName?
        if let name = arguments.first {
            do throws(PrefsStoreError) {
                domain = name == "-g" ? .global : try DomainName(name)
            } catch {
                POSIX.writeToStandardError("defaults browse: \(error.message)\n")
                return 64
            }
        }
        if let refusal = Terminal.refusal(environment: POSIX.environmentVariable("TERM")) {
            POSIX.writeToStandardError("defaults browse: \(refusal)\n")
            return 1
        }
        let problems = Mutex<[String]>([])
        let configuration = StoreConfiguration(
            flushDelay: .milliseconds(100), watchesFiles: true, flushesAtExit: true,
            diagnostics: { diagnostic in problems.withLock { $0.append(diagnostic.error.message) } })
        let store = AccessRoute.openEngine(
            paths: .fromProcessEnvironment(), clientName: "defaults browse", configuration: configuration)
        let browser = Browser(catalog: BrowserCatalog(store: store), domain: domain)
        let terminal: Terminal
        do throws(BrowserError) {
            terminal = try Terminal.open(wantsColors: (POSIX.environmentVariable("NO_COLOR") ?? "").isEmpty)
        } catch {
            POSIX.writeToStandardError("defaults browse: \(error.message)\n")
            return 1
        }
        defer { terminal.close() }
        var needsDrawing = true
        while !browser.isFinished, !terminal.stopRequested {
            if needsDrawing { terminal.draw(browser.frame(size: terminal.size)) }
            needsDrawing = false
            if let key = terminal.readKey(timeout: tick) {
                browser.handle(key)
                needsDrawing = true
            }
            if browser.refresh() { needsDrawing = true }
            let noticed = problems.withLock { problems in
                defer { problems = [] }
                return problems
            }
            if let last = noticed.last {
                browser.say(last, isError: true)
                needsDrawing = true
            }
        }
        return 0
    }

    static let usage = """
        usage: defaults browse [domain | -g]

        A full-screen browser and editor of every domain and layer: the domains on the left, the selected domain's
        keys with the layer that supplies each, and where a key's value comes from. Changes other processes make
        show as they happen. Press ? inside for the keys. NO_COLOR turns colours off.

        """
}
