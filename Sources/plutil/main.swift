// SPDX-License-Identifier: Apache-2.0
import PlutilCommand

Plutil.main(arguments: Array(CommandLine.arguments.dropFirst()))
