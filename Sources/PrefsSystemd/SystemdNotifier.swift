// SPDX-License-Identifier: Apache-2.0
import PrefsPOSIX

/// Tells the service manager about the daemon's state through `sd_notify(3)`.
///
/// Under a `Type=notify` unit systemd sets `NOTIFY_SOCKET`, waits for ``ready(status:)`` before it considers the
/// service started, shows the text of ``status(_:)`` in `systemctl status`, restarts the service when
/// ``watchdog()`` pings stop arriving within `WatchdogSec=`, and reads ``stopping(status:)`` as the start of a clean
/// shutdown. Without `NOTIFY_SOCKET` (started by hand, in tests) every send is a no-op that makes no system call.
///
/// The environment is read once, when the notifier is created.
public struct SystemdNotifier: Sendable {
    /// Whether a service manager listens: `NOTIFY_SOCKET` is set and not empty.
    public let isEnabled: Bool

    /// The watchdog timeout systemd enforces (`WATCHDOG_USEC`, from `WatchdogSec=`), or `nil` when the watchdog is
    /// off for this process: unset, set for another process (`WATCHDOG_PID`), or malformed.
    public let watchdogTimeout: Duration?

    /// How often to send ``watchdog()``: half of ``watchdogTimeout``, as `sd_watchdog_enabled(3)` recommends, so
    /// that one late ping still arrives in time. `nil` when the watchdog is off.
    public var watchdogInterval: Duration? { watchdogTimeout.map { $0 / 2 } }

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from the environment.
    public init() {
        isEnabled = !(POSIX.environmentVariable("NOTIFY_SOCKET") ?? "").isEmpty
        // A malformed WATCHDOG_USEC cannot come from systemd; treating it as "no watchdog" keeps a hand-started
        // daemon running instead of failing at start-up over a variable nothing enforces.
        let microseconds = try? Systemd.watchdogTimeoutMicroseconds()
        watchdogTimeout = microseconds.flatMap { $0 }.map { .microseconds(Int64(clamping: $0)) }
    }

    /// A notifier with the given state, whatever the environment says; for tests.
    init(isEnabled: Bool, watchdogTimeout: Duration?) {
        self.isEnabled = isEnabled
        self.watchdogTimeout = watchdogTimeout
    }

    /// Reports that start-up finished (`READY=1`): the socket is adopted and requests can be served.
    /// - Parameter status: A status line to send with it (see ``status(_:)``).
    /// - Throws: ``PrefsSystemdError/Code/notifyFailed`` when the message cannot be sent.
    public func ready(status: String? = nil) throws(PrefsSystemdError) {
        try send("READY=1", status: status)
    }

    /// Sets the one-line status `systemctl status` shows (`STATUS=`), such as `"12 domains, 3 clients"`.
    ///
    /// Line breaks (and NUL characters) in `text` become spaces, since a newline would end the assignment.
    /// - Throws: ``PrefsSystemdError/Code/notifyFailed`` when the message cannot be sent.
    public func status(_ text: String) throws(PrefsSystemdError) {
        try send(nil, status: text)
    }

    /// Pings the watchdog (`WATCHDOG=1`); ``SystemdWatchdogService`` does this on schedule.
    /// - Throws: ``PrefsSystemdError/Code/notifyFailed`` when the message cannot be sent.
    public func watchdog() throws(PrefsSystemdError) {
        try send("WATCHDOG=1", status: nil)
    }

    /// Reports that a clean shutdown began (`STOPPING=1`); systemd stops enforcing the watchdog from here on.
    /// - Parameter status: A status line to send with it, such as `"flushing 2 domains"`.
    /// - Throws: ``PrefsSystemdError/Code/notifyFailed`` when the message cannot be sent.
    public func stopping(status: String? = nil) throws(PrefsSystemdError) {
        try send("STOPPING=1", status: status)
    }

    /// Reports that the configuration is being reloaded (`RELOADING=1` with the `MONOTONIC_USEC=` timestamp newer
    /// systemd versions require); send ``ready(status:)`` again when the reload is done.
    /// - Throws: ``PrefsSystemdError/Code/notifyFailed`` when the message cannot be sent.
    public func reloading() throws(PrefsSystemdError) {
        guard isEnabled else { return }
        try send("RELOADING=1\nMONOTONIC_USEC=\(Systemd.monotonicMicroseconds())", status: nil)
    }

    /// The datagram text for a state and an optional status line; internal so tests can check it.
    static func message(_ state: String?, status: String?) -> String {
        var lines: [String] = []
        if let state { lines.append(state) }
        if let status {
            let oneLine = String(status.map { $0.isNewline || $0 == "\0" ? " " : $0 })
            lines.append("STATUS=" + oneLine)
        }
        return lines.joined(separator: "\n")
    }

    private func send(_ state: String?, status: String?) throws(PrefsSystemdError) {
        guard isEnabled else { return }
        let text = Self.message(state, status: status)
        do {
            _ = try Systemd.notify(text)
        } catch {
            let what = text.split(separator: "\n").first.map(String.init) ?? text
            throw PrefsSystemdError(.notifyFailed, "cannot send \(what) to the service manager", cause: error)
        }
    }
}
