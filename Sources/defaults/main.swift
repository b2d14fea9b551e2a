// SPDX-License-Identifier: Apache-2.0
import DefaultsCommand

DefaultsCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
