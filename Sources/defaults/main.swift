import DefaultsCommand

DefaultsCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
