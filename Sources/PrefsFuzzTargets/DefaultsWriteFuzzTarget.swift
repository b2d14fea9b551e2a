// SPDX-License-Identifier: Apache-2.0
import DefaultsArguments
import PrefsPlist

/// The fuzz target of `defaults write`'s value parser: the input is cut at NUL bytes into the domain's current
/// values and a command line.
///
/// The first part is a property list in any format (OpenStep text, say): a dictionary is the domain's values,
/// anything else an empty domain. The other parts are the arguments after `defaults write <domain>`: a key (or
/// `-keypath <path>`) and a value (`-int 5`, `-array a b`, `-dict-add k v`, `'(1, 2)'`, `'<integer>5</integer>'`, …),
/// more pairs after `--`, or a single domain representation. The command line is parsed as `defaults` parses it
/// and the assignments are applied to the values as `write` applies them, without the storage. Besides "no
/// crash", it checks that:
/// - every error has a message;
/// - a value survives the binary format (as the store writes it), and a value OpenStep text holds (strings, data,
///   arrays, dictionaries) prints as OpenStep text that the parser reads back as the same value;
/// - after an assignment, the key path holds the value (`-array-add`: the old elements then the new ones;
///   `-dict-add`: the old entries with the new ones over them); a failed assignment changes nothing;
/// - read at every typed flag of the command line, a value is of the flag's type, and prints as an argument that
///   reads back the same (`-int`, `-float`, `-data`, `-date` in whole seconds, `-string`, `-bool`).
public enum DefaultsWriteFuzzTarget {
    /// The domain named on the command line.
    static let domainName = "org.example.fuzz"
    /// The typed value flags of `write`.
    static let typedFlags: Set<String> = [
        "-string", "-data", "-int", "-integer", "-float", "-bool", "-boolean", "-date", "-array", "-array-add", "-dict",
        "-dict-add",
    ]
    /// The flags that read the rest of the pair as elements or entries.
    static let containerFlags: Set<String> = ["-array", "-array-add", "-dict", "-dict-add"]

    /// Runs the checks on one input.
    /// - Parameter input: The domain's values, then the arguments, separated by NUL bytes.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let (head, tail) = FuzzInput.splitAtFirstNUL(input)
        guard head.count < input.count else { return }  // no command line
        let values = FuzzInput.plist(head)?.dictionaryValue ?? [:]
        let tokens = FuzzInput.arguments(tail)
        checkCommandLine(tokens, values: values)
        for index in tokens.indices where typedFlags.contains(tokens[index]) {
            checkTypedValue(tokens, at: index)
        }
    }

    /// `defaults write <domain> <tokens>` parsed and applied to `values`.
    static func checkCommandLine(_ tokens: [String], values: PlistDictionary) {
        let invocation: Invocation
        do throws(DefaultsError) {
            invocation = try Invocation.parse(["write", domainName] + tokens)
        } catch {
            FuzzInvariant.require(!error.message.isEmpty, "parsing \(tokens) failed without a message")
            return
        }
        switch invocation.command {
        case .write(_, let assignments):
            FuzzInvariant.require(!assignments.isEmpty, "\(tokens) parsed as a write of nothing")
            var domain = values
            for assignment in assignments {
                checkValue(assignment.value)
                apply(assignment, to: &domain)
            }
            FuzzInvariant.require(
                FuzzInput.survivesBinary(.dictionary(domain)), "the written domain does not survive the binary format")
        case .replaceDomain(_, let representation):
            do throws(DefaultsError) {
                checkValue(try ValueParser.parsePropertyListText(representation))
            } catch {
                FuzzInvariant.require(!error.message.isEmpty, "a domain representation failed without a message")
            }
        default:
            FuzzInvariant.fail("\(tokens) after `write \(domainName)` parsed as another command")
        }
    }

    /// Applies one assignment and checks what it did.
    static func apply(_ assignment: KeyAssignment, to domain: inout PlistDictionary) {
        let before = domain
        let current = assignment.key.value(in: domain)
        do throws(DefaultsError) {
            try assignment.apply(to: &domain, domainName: domainName)
        } catch {
            FuzzInvariant.require(!error.message.isEmpty, "writing \(assignment.key) failed without a message")
            FuzzInvariant.require(domain == before, "a failed write of \(assignment.key) changed the domain")
            return
        }
        let now = assignment.key.value(in: domain)
        switch (assignment.mode, current, assignment.value) {
        case (.arrayAdd, .array(let old)?, .array(let added)):
            guard case .array(let elements)? = now else { FuzzInvariant.fail("-array-add left no array") }
            FuzzInvariant.require(
                elements.count == old.count + added.count && Array(elements.prefix(old.count)) == old
                    && Array(elements.suffix(added.count)) == added,
                "-array-add did not append to the old elements")
        case (.dictionaryAdd, .dictionary(let old)?, .dictionary(let added)):
            guard case .dictionary(let entries)? = now else { FuzzInvariant.fail("-dict-add left no dictionary") }
            FuzzInvariant.require(
                added.allSatisfy { entries[$0.key] == $0.value }
                    && old.allSatisfy { entries[$0.key] == (added[$0.key] ?? $0.value) }
                    && entries.count == old.merging(added) { $1 }.count,
                "-dict-add did not add the new entries over the old ones")
        default:
            FuzzInvariant.require(now == assignment.value, "after writing \(assignment.key), it holds another value")
        }
    }

    /// A parsed value is storable, and OpenStep text of it reads back the same.
    static func checkValue(_ value: PlistValue) {
        FuzzInvariant.require(FuzzInput.survivesBinary(value), "a parsed value does not survive the binary format")
        guard FuzzInput.isOpenStepOnly(value) else { return }
        var text: String
        do {
            text = String(decoding: try PlistSerialization.encode(value, format: .openStep), as: UTF8.self)
        } catch {
            FuzzInvariant.fail("a parsed value cannot be written as OpenStep text: \(error)")
        }
        // The writer ends the text with a newline, which `"$(…)"` in a shell would drop.
        if text.hasSuffix("\n") { text.removeLast() }
        do throws(DefaultsError) {
            let again = try ValueParser.parsePropertyListText(text)
            FuzzInvariant.require(again == value, "a value printed as \(text.debugDescription) reads back changed")
        } catch {
            FuzzInvariant.fail("a value printed as \(text.debugDescription) does not read back: \(error)")
        }
    }

    /// The value read at a typed flag, as `write` reads one.
    static func checkTypedValue(_ tokens: [String], at index: Int) {
        let flag = tokens[index]
        var cursor = index
        let value: PlistValue
        let mode: KeyAssignment.Mode
        do throws(DefaultsError) {
            (value, mode) = try ValueParser.parseValue(tokens, cursor: &cursor, allowsContainers: true)
        } catch {
            FuzzInvariant.require(!error.message.isEmpty, "\(flag) failed without a message")
            return
        }
        FuzzInvariant.require(
            containerFlags.contains(flag) ? cursor > index && cursor <= tokens.count : cursor == index + 2,
            "\(flag) at \(index) of \(tokens.count) arguments moved the cursor to \(cursor)")
        let argument = index + 1 < tokens.count ? tokens[index + 1] : ""
        switch (flag, value) {
        case ("-string", .string(let string)):
            FuzzInvariant.require(string == argument, "-string changed its argument")
        case ("-int", .integer(let integer)), ("-integer", .integer(let integer)):
            expectReadBack(flag, "\(integer)", value)
        case ("-float", .real(let real)):
            if !real.isNaN { expectReadBack(flag, "\(real)", value) }
        case ("-bool", .bool), ("-boolean", .bool):
            break
        case ("-data", .data(let bytes)):
            let digits = argument.utf8.count
            FuzzInvariant.require(
                bytes.count == (digits + 1) / 2, "-data made \(bytes.count) bytes of \(digits) digits")
            expectReadBack(
                flag,
                bytes.map { byte in String(byte >> 4, radix: 16) + String(byte & 15, radix: 16) }
                    .joined(), value)
        case ("-date", .date(let date)):
            // Dates are read in whole seconds, which is what they print as.
            if let text = date.defaultsString { expectReadBack(flag, text, value) }
        case ("-array", .array), ("-array-add", .array), ("-dict", .dictionary), ("-dict-add", .dictionary):
            let expected: KeyAssignment.Mode =
                switch flag {
                case "-array-add": .arrayAdd
                case "-dict-add": .dictionaryAdd
                default: .set
                }
            FuzzInvariant.require(mode == expected, "\(flag) gave the wrong mode")
            checkValue(value)
            return
        default:
            FuzzInvariant.fail("\(flag) gave a \(value.typeName)")
        }
        FuzzInvariant.require(mode == .set, "\(flag) does not replace the value")
    }

    /// `flag text` reads as `expected`.
    static func expectReadBack(_ flag: String, _ text: String, _ expected: PlistValue) {
        var cursor = 0
        let again = try? ValueParser.parseValue([flag, text], cursor: &cursor, allowsContainers: false).value
        FuzzInvariant.require(
            again == expected, "\(flag) \(text.debugDescription) reads as \(again.map { "\($0)" } ?? "an error")")
    }
}
