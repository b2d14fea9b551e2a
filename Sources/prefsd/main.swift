// SPDX-License-Identifier: Apache-2.0
import Dispatch
import PrefsDaemon

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// The daemon runs in a task of the default priority, not in an async main task: that one is user-initiated, and
// libdispatch renices the worker threads of user-initiated work to -4, which a service without CAP_SYS_NICE (any
// systemd user service) may not do: it logged "Failed to set thread priority for worker thread … errno=13" at every
// start. At the default priority the workers stay at nice 0.
Task.detached(priority: .medium) {
    exit(await Prefsd.main(arguments: Array(CommandLine.arguments.dropFirst())))
}
dispatchMain()
