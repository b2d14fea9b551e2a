// SPDX-License-Identifier: Apache-2.0
import DefaultsCommand
import DefaultsFleet
import Dispatch
import PrefsDaemon

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
// Run as `defaults-fleet` (the package's is a link to this file, which `defaults fleet` runs), it is the etcd
// administration of `defaults`: prefsd carries SwiftNIO and the etcd client already, so the package holds them once
// (docs/FLEET.md, docs/PACKAGING.md).
if let name = CommandLine.arguments.first, name == "defaults-fleet" || name.hasSuffix("/defaults-fleet") {
    DefaultsCommand.main(arguments: arguments, fleetAdministration: EtcdFleetAdministration())
}
Task.detached(priority: .medium) {
    exit(await Prefsd.main(arguments: arguments))
}
dispatchMain()
