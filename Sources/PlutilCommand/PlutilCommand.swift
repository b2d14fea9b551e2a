// SPDX-License-Identifier: Apache-2.0
import PrefsCommandLine
import PrefsPlist

/// A parsed `plutil` command line.
enum PlutilCommand: Equatable {
    /// The output target of a conversion.
    enum Output: Equatable {
        /// Replace each input file, atomically.
        case inPlace
        /// Write to standard output.
        case standardOutput
        /// Write to this path.
        case path(String)
        /// Write next to the input, with this extension instead of its own.
        case replacingExtension(String)
    }

    /// The format an `-extract` writes.
    enum ExtractFormat: Equatable {
        case plist(PlistFormat)
        case raw
    }

    case help
    case version
    case completion(Shell)
    /// `-lint [-schema <schema>]`: each file read, and with a schema checked against it.
    case lint(files: [String], silent: Bool, schema: String? = nil)
    case convert(format: PlistFormat, humanReadable: Bool, output: Output, files: [String], silent: Bool)
    case print(files: [String])
    case extract(keyPath: String, format: ExtractFormat, humanReadable: Bool, output: Output, file: String)

    /// A usage problem: its one-line reason, printed before a hint to run `plutil -help`.
    struct UsageError: Error, Equatable {
        let message: String
    }

    /// Parses the arguments after the program name, as macOS `plutil` does.
    static func parse(_ arguments: [String]) throws(UsageError) -> PlutilCommand {
        var verb: String?
        var convertFormat: PlistFormat?
        var extractArguments: (keyPath: String, format: ExtractFormat)?
        var output: Output = .inPlace
        var silent = false
        var schema: String?
        var humanReadable = false
        var files: [String] = []
        var index = 0
        var optionsEnded = false

        func next(_ what: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(message: "Missing argument for \(what).") }
            return arguments[index]
        }

        while index < arguments.count {
            let argument = arguments[index]
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                files.append(argument)
                index += 1
                continue
            }
            switch argument {
            case "--": optionsEnded = true
            case "-help", "--help", "-h": return .help
            case "-version", "--version": return .version
            case "-completion":
                guard let shell = Shell(rawValue: try next("-completion")) else {
                    throw UsageError(message: "-completion takes \(Shell.nameList).")
                }
                return .completion(shell)
            case "-lint", "-p":
                try setVerb(argument, &verb)
            case "-convert":
                try setVerb(argument, &verb)
                convertFormat = try plistFormat(named: try next("-convert"))
            case "-extract":
                try setVerb(argument, &verb)
                let keyPath = try next("-extract")
                let formatName = try next("-extract")
                extractArguments = (keyPath, formatName == "raw" ? .raw : .plist(try plistFormat(named: formatName)))
            case "-o":
                let path = try next("-o")
                output = path == "-" ? .standardOutput : .path(path)
            case "-e":
                output = .replacingExtension(try next("-e"))
            case "-schema": schema = try next("-schema")
            case "-s": silent = true
            case "-r": humanReadable = true
            default:
                throw UsageError(
                    message: "Unrecognized option: \(argument)"
                        + SpellingSuggestion.clause(for: argument, among: OptionTable.plutil.names))
            }
            index += 1
        }

        guard let verb else {
            // `plutil lint x.plist` means -lint: the first word is then a command without its dash.
            let suggestion = files.first.map { SpellingSuggestion.clause(for: "-" + $0, among: commandNames) } ?? ""
            throw UsageError(message: "No command specified" + (suggestion.isEmpty ? "." : suggestion))
        }
        guard !files.isEmpty else { throw UsageError(message: "No files specified.") }
        if schema != nil, verb != "-lint" { throw UsageError(message: "-schema goes with -lint only.") }
        if case .path = output, files.count > 1 {
            throw UsageError(message: "Only one file may be specified with -o.")
        }
        switch verb {
        case "-lint": return .lint(files: files, silent: silent, schema: schema)
        case "-p": return .print(files: files)
        case "-convert":
            return .convert(
                format: convertFormat!, humanReadable: humanReadable, output: output, files: files, silent: silent)
        default:
            guard files.count == 1, let extractArguments else {
                throw UsageError(message: "-extract takes exactly one file.")
            }
            let extractOutput = (extractArguments.format == .raw && output == .inPlace) ? .standardOutput : output
            return .extract(
                keyPath: extractArguments.keyPath, format: extractArguments.format, humanReadable: humanReadable,
                output: extractOutput, file: files[0])
        }
    }

    /// The options that say what plutil does, one per command line.
    private static var commandNames: [String] {
        OptionTable.plutil.options.filter(\.isCommand).map(\.name)
    }

    private static func setVerb(_ argument: String, _ verb: inout String?) throws(UsageError) {
        if let verb { throw UsageError(message: "Cannot combine \(verb) with \(argument).") }
        verb = argument
    }

    private static func plistFormat(named name: String) throws(UsageError) -> PlistFormat {
        switch name {
        case "xml1": .xml
        case "binary1": .binary
        case "json": .json
        case "openstep": .openStep
        default: throw UsageError(message: "Unknown format specifier: \(name) (use xml1, binary1, json or openstep).")
        }
    }
}
