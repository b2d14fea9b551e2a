// SPDX-License-Identifier: Apache-2.0
import DefaultsCommand
import PlutilCommand

// One executable for defaults and plutil: run as `plutil` (the package's plutil is a link to this file), it is
// plutil, so that the two share one copy of the Swift runtime (docs/PACKAGING.md, "Linking and start-up").
let arguments = Array(CommandLine.arguments.dropFirst())
if let name = CommandLine.arguments.first, name == "plutil" || name.hasSuffix("/plutil") {
    Plutil.main(arguments: arguments)
}
DefaultsCommand.main(arguments: arguments)
