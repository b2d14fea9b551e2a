// SPDX-License-Identifier: Apache-2.0
// `defaults fleet write|read|delete|list` runs this executable with its own arguments: `defaults` with the etcd
// client linked in (docs/FLEET.md, "Administration"). Not meant to be run by hand, though it accepts any `defaults`
// command line.
import DefaultsCommand
import DefaultsFleet

DefaultsCommand.main(
    arguments: Array(CommandLine.arguments.dropFirst()), fleetAdministration: EtcdFleetAdministration())
