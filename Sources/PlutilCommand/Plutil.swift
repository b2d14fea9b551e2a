// SPDX-License-Identifier: Apache-2.0
import PrefsCommandLine
import PrefsDomain
import PrefsPlist

#if canImport(Glibc)
    import Glibc
#endif

/// `plutil`: checks, converts, prints and extracts property lists, as the macOS command does.
///
/// A module of its own, so that the `defaults` executable can be `plutil` too when it is run by that name (the
/// package installs `plutil` as a link to `defaults`: one copy of the Swift runtime instead of two); the `plutil`
/// executable of the package's products runs the same code.
package enum Plutil {
    static let helpText = """
        plutil: check, convert, print and extract property lists (XML, binary, OpenStep, JSON).

        usage: plutil <command> [options] <files>

        commands:
          -lint                     check each file; prints "<file>: OK" or the error
          -lint -schema <schema>    check each file against a domain schema (docs/SCHEMAS.md) too:
                                    each key's type, range or choices; prints each violation
          -convert <fmt>            rewrite each file in <fmt>: xml1, binary1, json or openstep
          -p                        print a human-readable view (not meant to be parsed)
          -extract <keypath> <fmt>  write the value at <keypath> in <fmt> (xml1, binary1, json, or raw:
                                    the bare value of a string, number, boolean, date or data)
          -help                     show this text
          -version                  show the version (also --version)
          -completion <shell>       print a completion script for bash, zsh or fish

        options:
          -o <path>                 write to <path> instead of in place; "-o -" writes to standard output
          -e <extension>            write next to each input, with <extension> instead of its own
          -r                        human-readable JSON (indented) with -convert json / -extract … json
          -s                        silent: print nothing for files that are OK
          --                        end of options; every following argument is a file

        A keypath is a list of keys and array indices separated by "."; write "\\." for a dot inside a key.
        Input files may be in any of the four formats; "-" reads standard input.
        Conversions replace the file atomically (temporary file, fsync, rename).

        examples:
          plutil -lint ~/.config/preferences/*.plist
          plutil -lint -schema /usr/share/preferences/domains/Schemas/prefsd.schema.plist prefsd.plist
          plutil -convert xml1 Settings.plist
          plutil -convert json -r -o - Settings.plist
          plutil -p Settings.plist
          plutil -extract Window.Frame raw Settings.plist
          plutil -extract Recent.0 xml1 -o - Settings.plist

        exit status: 0 when every file succeeded, 1 otherwise, 2 for a usage error (its reason on standard error).
        """

    /// Runs `plutil` with `arguments` (those after the program's name) and exits with its status.
    package static func main(arguments: [String]) -> Never {
        let command: PlutilCommand
        do {
            command = try PlutilCommand.parse(arguments)
        } catch {
            // The reason, and where to read more: the whole usage text would push the reason off the screen.
            FileIO.printError("plutil: \(error.message)")
            FileIO.printError("Run 'plutil -help' for usage.")
            exit(usageErrorStatus)
        }
        exit(run(command) ? 0 : 1)
    }

    /// The exit status of a usage error: 2, as prefsd's and GNU tools' (defaults keeps macOS's 255).
    static let usageErrorStatus: Int32 = 2

    /// Runs a command; returns true when every file succeeded.
    static func run(_ command: PlutilCommand) -> Bool {
        switch command {
        case .help:
            FileIO.printLine(helpText)
            return true
        case .version:
            return writeOutput(PreferencesVersion.versionLine(program: "plutil"))
        case .completion(let shell):
            return writeOutput(OptionTable.plutil.completionScript(for: shell))
        case .lint(let files, let silent, nil):
            return files.reduce(true) { ok, file in lint(file, silent: silent) && ok }
        case .lint(let files, let silent, let schemaPath?):
            guard let schema = loadSchema(schemaPath) else { return false }
            return files.reduce(true) { ok, file in lint(file, silent: silent, against: schema) && ok }
        case .print(let files):
            return files.reduce(true) { ok, file in printReadable(file) && ok }
        case .convert(let format, let humanReadable, let output, let files, let silent):
            return files.reduce(true) { ok, file in
                convert(file, to: format, humanReadable: humanReadable, output: output, silent: silent) && ok
            }
        case .extract(let keyPath, let format, let humanReadable, let output, let file):
            return extract(
                PlistKeyPath(keyPath), format: format, humanReadable: humanReadable, output: output, from: file)
        }
    }

    /// Writes text to standard output; false, with the reason on standard error, when it cannot.
    private static func writeOutput(_ text: String) -> Bool {
        do {
            try FileIO.writeStandardOutput(Array(text.utf8))
            return true
        } catch {
            FileIO.printError("plutil: \(error)")
            return false
        }
    }

    private static func load(_ file: String) -> PlistValue? {
        do {
            return try PlistSerialization.decode(try FileIO.read(path: file))
        } catch {
            FileIO.printError("\(file): \(error)")
            return nil
        }
    }

    private static func lint(_ file: String, silent: Bool) -> Bool {
        guard load(file) != nil else { return false }
        if !silent { FileIO.printLine("\(file): OK") }
        return true
    }

    /// Reads a schema file; `nil`, with the reason on standard error, when it cannot be used.
    private static func loadSchema(_ path: String) -> DomainSchema? {
        let fileName = path.split(separator: "/").last.map(String.init) ?? path
        let domain = DomainSchema.domainName(forFileName: fileName)
        do {
            return try DomainSchema(decoding: try FileIO.read(path: path), domain: domain, path: path)
        } catch let error as PrefsStoreError {
            FileIO.printError("plutil: \(error.message)")
        } catch {
            FileIO.printError("plutil: schema \(path): \(error)")
        }
        return nil
    }

    /// Checks a file against a schema: it must hold a dictionary, and each key the schema describes must hold a value
    /// its rule allows. Prints each violation, naming the key and the rule.
    private static func lint(_ file: String, silent: Bool, against schema: DomainSchema) -> Bool {
        guard let value = load(file) else { return false }
        guard case .dictionary(let entries) = value else {
            FileIO.printError(
                "\(file): holds \(DomainSchema.kind(value)), not the dictionary of a domain "
                    + "(schema \(schema.path ?? ""))")
            return false
        }
        var ok = true
        for key in entries.keys.sorted() {
            guard let problem = schema.problem(key: key, value: entries[key]!) else { continue }
            FileIO.printError("\(file): \(problem) (schema \(schema.path ?? ""))")
            ok = false
        }
        if ok, !silent { FileIO.printLine("\(file): OK") }
        return ok
    }

    private static func printReadable(_ file: String) -> Bool {
        guard let value = load(file) else { return false }
        do {
            try FileIO.writeStandardOutput(Array(HumanReadablePrinter.text(of: value).utf8))
            return true
        } catch {
            FileIO.printError("\(file): \(error)")
            return false
        }
    }

    private static func convert(
        _ file: String, to format: PlistFormat, humanReadable: Bool, output: PlutilCommand.Output, silent: Bool
    ) -> Bool {
        guard let value = load(file) else { return false }
        return write(value, as: format, humanReadable: humanReadable, output: output, input: file)
    }

    private static func extract(
        _ keyPath: PlistKeyPath, format: PlutilCommand.ExtractFormat, humanReadable: Bool, output: PlutilCommand.Output,
        from file: String
    ) -> Bool {
        guard let root = load(file) else { return false }
        guard let value = keyPath.value(in: root) else {
            FileIO.printError("\(file): No value at that key path (\(keyPath)).")
            return false
        }
        switch format {
        case .plist(let plistFormat):
            return write(value, as: plistFormat, humanReadable: humanReadable, output: output, input: file)
        case .raw:
            guard let text = rawText(of: value) else {
                FileIO.printError(
                    "\(file): Value at \(keyPath) is a \(value.typeName); raw output takes a string, number, "
                        + "boolean, date or data (use xml1, binary1 or json).")
                return false
            }
            return emit(Array((text + "\n").utf8), output: output, input: file)
        }
    }

    /// The `-extract … raw` text of a scalar, as macOS prints it.
    static func rawText(of value: PlistValue) -> String? {
        switch value {
        case .string(let text): text
        case .integer(let number): number.description
        case .real(let number): number.description
        case .bool(let flag): flag ? "true" : "false"
        case .date(let date): date.iso8601String
        case .data(let bytes): String(decoding: Base64.encode(bytes), as: UTF8.self)
        case .uid(let number): String(number)
        case .array, .dictionary, .null: nil
        }
    }

    private static func write(
        _ value: PlistValue, as format: PlistFormat, humanReadable: Bool, output: PlutilCommand.Output, input: String
    ) -> Bool {
        let bytes: [UInt8]
        do {
            bytes =
                format == .json && humanReadable
                ? try PlistSerialization.encodeJSON(value, pretty: true)
                : try PlistSerialization.encode(value, format: format)
        } catch {
            FileIO.printError("\(input): \(error)")
            return false
        }
        return emit(bytes, output: output, input: input)
    }

    private static func emit(_ bytes: [UInt8], output: PlutilCommand.Output, input: String) -> Bool {
        do {
            switch output {
            case .standardOutput:
                try FileIO.writeStandardOutput(bytes)
            case .inPlace:
                guard input != "-" else { return emit(bytes, output: .standardOutput, input: input) }
                try FileIO.writeAtomically(bytes, to: input)
            case .path(let path):
                try FileIO.writeAtomically(bytes, to: path)
            case .replacingExtension(let newExtension):
                let base = input.lastIndex(of: ".").map { String(input[..<$0]) } ?? input
                try FileIO.writeAtomically(bytes, to: base + "." + newExtension)
            }
            return true
        } catch {
            FileIO.printError("\(input): \(error)")
            return false
        }
    }
}
