internal import CPrefsXML2
import Glibc

/// Reads XML property lists with libxml2's streaming `xmlReader`, following CoreFoundation's rules.
///
/// libxml2 does the XML work (well-formedness, character references, the five predefined entities,
/// CDATA, encodings it knows); this type walks the node stream with an explicit stack, so nesting
/// never recurses, and turns the plist elements into a ``PlistValue``. Security: no entity
/// substitution, no DTD loading, no network; a DOCTYPE with an internal subset (where entities would
/// be declared) is refused, as CoreFoundation refuses inline DTDs.
enum XMLPlistReader {
    /// Decodes an XML property list.
    /// - Parameters:
    ///   - bytes: The document, in UTF-8 (or an 8-bit encoding it declares), UTF-16 or UTF-32.
    ///   - limits: The input size, nesting depth and object count to enforce.
    /// - Returns: The root value.
    /// - Throws: ``PlistError`` naming the problem and its line and column.
    static func read(_ bytes: UnsafeRawBufferPointer, limits: PlistLimits) throws -> PlistValue {
        guard bytes.count <= limits.maxInputBytes else {
            throw PlistError(
                .limitExceeded,
                "the document is \(bytes.count) bytes, more than the input size limit of \(limits.maxInputBytes) bytes",
                at: .byteOffset(limits.maxInputBytes))
        }
        let (encoding, bomLength) = TextEncodingSniffer.detect(bytes)
        if encoding == .utf8 {
            // Without a byte-order mark libxml2 honours the XML declaration (`ISO-8859-1`, …) as
            // CoreFoundation does; with one, the mark decides.
            let body = UnsafeRawBufferPointer(rebasing: bytes[bomLength...])
            return try parse(body, forceUTF8: bomLength > 0, limits: limits)
        }
        // libxml2 has no UTF-32, so every wide encoding is transcoded first and the declaration's
        // `encoding="UTF-16"` is then ignored.
        guard let (utf8, _) = TextEncodingSniffer.utf8Bytes(of: bytes) else {
            throw PlistError(
                .invalidEncoding, "the document is not valid \(encoding.displayName) text",
                at: .byteOffset(firstInvalidOffset(in: bytes, encoding: encoding)))
        }
        guard utf8.count <= limits.maxInputBytes else {
            throw PlistError(
                .limitExceeded,
                "the document is \(utf8.count) bytes once converted to UTF-8, more than the input size limit of "
                    + "\(limits.maxInputBytes) bytes",
                at: .byteOffset(0))
        }
        return try utf8.withUnsafeBytes { try parse($0, forceUTF8: true, limits: limits) }
    }

    private static func parse(_ text: UnsafeRawBufferPointer, forceUTF8: Bool, limits: PlistLimits) throws -> PlistValue
    {
        // Dropping the white space between elements in libxml2 saves a quarter of the nodes. Its
        // heuristic can also drop white space inside a scalar that is next to a comment, processing
        // instruction or CDATA section; the walker stops when it meets one there, and the document
        // is read again with every blank kept. The heuristic also looks at carriage returns, so a
        // document with any is read with blanks kept from the start.
        let hasCarriageReturn = text.baseAddress.map { memchr($0, 0x0D, text.count) != nil } ?? false
        if hasCarriageReturn {
            return try parse(text, forceUTF8: forceUTF8, dropBlanks: false, limits: limits)
        }
        do {
            return try parse(text, forceUTF8: forceUTF8, dropBlanks: true, limits: limits)
        } catch is RetryKeepingBlanks {
            return try parse(text, forceUTF8: forceUTF8, dropBlanks: false, limits: limits)
        }
    }

    /// Thrown when a document must be read again with white space kept.
    struct RetryKeepingBlanks: Error {}

    private static func parse(
        _ text: UnsafeRawBufferPointer, forceUTF8: Bool, dropBlanks: Bool, limits: PlistLimits
    ) throws -> PlistValue {
        guard let base = text.baseAddress, !text.isEmpty else {
            throw PlistError(.malformed, "the document is empty", at: .text(line: 1, column: 1))
        }
        guard text.count <= Int(Int32.max) else {
            throw PlistError(
                .limitExceeded, "the document is larger than libxml2 can read (2 GiB)", at: .byteOffset(Int(Int32.max)))
        }
        libxml2Initialization.touch()
        // Never XML_PARSE_NOENT, XML_PARSE_DTDLOAD or XML_PARSE_HUGE: with NOENT libxml2 reads external
        // entities (file:// included, whatever NONET says).
        var options = XML_PARSE_NONET.rawValue | XML_PARSE_COMPACT.rawValue | XML_PARSE_BIG_LINES.rawValue
        if forceUTF8 { options |= XML_PARSE_IGNORE_ENC.rawValue }
        if dropBlanks { options |= XML_PARSE_NOBLANKS.rawValue }
        let created = base.withMemoryRebound(to: CChar.self, capacity: text.count) {
            xmlReaderForMemory($0, Int32(text.count), nil, forceUTF8 ? "UTF-8" : nil, Int32(bitPattern: options))
        }
        guard let reader = created else {
            throw PlistError(.malformed, "libxml2 could not create a reader for the document", at: .byteOffset(0))
        }
        defer { xmlFreeTextReader(reader) }
        let errors = XMLPlistReader.ErrorSink()
        return try withExtendedLifetime(errors) {
            xmlTextReaderSetStructuredErrorHandler(
                reader,
                { context, error in
                    guard let context, let error else { return }
                    Unmanaged<XMLPlistReader.ErrorSink>.fromOpaque(context).takeUnretainedValue().record(error.pointee)
                },
                Unmanaged.passUnretained(errors).toOpaque())
            var walker = XMLPlistReader.TreeBuilder(
                reader: reader, source: text, limits: limits, errors: errors, blanksDropped: dropBlanks)
            return try walker.run()
        }
    }
}

/// Calls `xmlInitParser` exactly once per process (Swift runs a global's initializer once, safely).
private let libxml2Initialization = LibXMLInitialization()

private struct LibXMLInitialization: Sendable {
    init() { xmlInitParser() }
    func touch() {}
}

extension XMLPlistReader {
    /// Collects the first error libxml2 reports for one reader; never shared between readers.
    final class ErrorSink {
        @exclusivity(unchecked) private(set) var first: PlistError?

        func record(_ error: xmlError) {
            // Warnings (an unusual namespace URI, say) do not stop a document being a valid plist.
            guard first == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            var message = error.message.map { String(cString: $0) } ?? "libxml2 error \(error.code)"
            while message.last?.isWhitespace == true { message.removeLast() }
            let position = PlistError.Position.text(line: max(1, Int(error.line)), column: max(1, Int(error.int2)))
            // libxml2's own hard limits (nesting 256, text nodes of 10 MB) say so by naming the option
            // that would lift them, which a plist reader must never set.
            let code: PlistError.Code = message.contains("XML_PARSE_HUGE") ? .limitExceeded : .malformed
            first = PlistError(code, "invalid XML: \(message)", at: position)
        }
    }

    /// The plist elements, as libxml2 interned their names for one reader.
    enum Tag: UInt8, Sendable, CaseIterable {
        case plist, dict, array, key, string, integer, real, `true`, `false`, date, data

        var name: String {
            switch self {
            case .plist: "plist"
            case .dict: "dict"
            case .array: "array"
            case .key: "key"
            case .string: "string"
            case .integer: "integer"
            case .real: "real"
            case .true: "true"
            case .false: "false"
            case .date: "date"
            case .data: "data"
            }
        }
    }

    /// The element names as pointers into one reader's name dictionary, compared by identity.
    struct InternedNames {
        private let key, string, integer, real, `true`, `false`, date, data, dict, array, plist: UnsafePointer<xmlChar>?

        init(reader: xmlTextReaderPtr) {
            func intern(_ tag: Tag) -> UnsafePointer<xmlChar>? {
                tag.name.withCString { name in
                    name.withMemoryRebound(to: xmlChar.self, capacity: tag.name.utf8.count + 1) {
                        xmlTextReaderConstString(reader, $0)
                    }
                }
            }
            key = intern(.key)
            string = intern(.string)
            integer = intern(.integer)
            real = intern(.real)
            `true` = intern(.true)
            `false` = intern(.false)
            date = intern(.date)
            data = intern(.data)
            dict = intern(.dict)
            array = intern(.array)
            plist = intern(.plist)
        }

        /// The tag whose interned name is `name`, most frequent first.
        func tag(for name: UnsafePointer<xmlChar>) -> Tag? {
            switch name {
            case key: .key
            case string: .string
            case integer: .integer
            case dict: .dict
            case array: .array
            case real: .real
            case `true`: .true
            case `false`: .false
            case date: .date
            case data: .data
            case plist: .plist
            default: nil
            }
        }
    }

    /// Walks one reader's node stream and builds the value.
    struct TreeBuilder {
        private enum NodeType {
            static let element = Int32(XML_READER_TYPE_ELEMENT.rawValue)
            static let text = Int32(XML_READER_TYPE_TEXT.rawValue)
            static let cdata = Int32(XML_READER_TYPE_CDATA.rawValue)
            static let entityReference = Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue)
            static let processingInstruction = Int32(XML_READER_TYPE_PROCESSING_INSTRUCTION.rawValue)
            static let comment = Int32(XML_READER_TYPE_COMMENT.rawValue)
            static let documentType = Int32(XML_READER_TYPE_DOCUMENT_TYPE.rawValue)
            static let whitespace = Int32(XML_READER_TYPE_WHITESPACE.rawValue)
            static let significantWhitespace = Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue)
            static let endElement = Int32(XML_READER_TYPE_END_ELEMENT.rawValue)
        }

        /// Where a start tag is: its line, and how many start tags precede it on that line.
        struct TagPosition {
            var line: Int
            var ordinal: Int
        }

        private enum FrameKind { case plist, array, dictionary }

        /// An open `<plist>`, `<array>` or `<dict>`. Its children sit on `values` from `start` up;
        /// a dictionary's alternate key (as `.string`) and value.
        private struct Frame {
            var kind: FrameKind
            var position: TagPosition
            var start: Int
            var pendingKeyPosition = TagPosition(line: 0, ordinal: 0)
        }

        private let reader: xmlTextReaderPtr
        private let source: UnsafeRawBufferPointer
        private let limits: PlistLimits
        private let errors: ErrorSink
        private let names: InternedNames
        /// Whether libxml2 was told to drop blank text nodes (see ``XMLPlistReader/RetryKeepingBlanks``).
        private let blanksDropped: Bool

        private var stack: [Frame] = []
        private let values = ValueStack<PlistValue>(capacity: 256)
        private var containerDepth = 0
        private var objectCount = 0
        private var root: PlistValue?
        private var checkedDocumentType = false

        /// The scalar element being read, its start tag, and its text so far: strings and keys
        /// straight into a `String`, the rest as bytes to parse.
        private var scalarTag: Tag?
        private var scalarPosition = TagPosition(line: 0, ordinal: 0)
        private var scalarString = ""
        private var scalarBytes: [UInt8] = []

        private var lastTagLine = 0
        private var tagsOnLastLine = 0

        init(
            reader: xmlTextReaderPtr, source: UnsafeRawBufferPointer, limits: PlistLimits, errors: ErrorSink,
            blanksDropped: Bool
        ) {
            self.reader = reader
            self.blanksDropped = blanksDropped
            self.source = source
            self.limits = limits
            self.errors = errors
            names = InternedNames(reader: reader)
            scalarBytes.reserveCapacity(256)
            stack.reserveCapacity(16)
        }

        mutating func run() throws -> PlistValue {
            while true {
                let status = xmlTextReaderRead(reader)
                if let error = errors.first { throw error }
                if status == 0 { break }
                guard status > 0 else {
                    throw PlistError(.malformed, "libxml2 stopped reading the document", at: parserPosition())
                }
                switch xmlTextReaderNodeType(reader) {
                case NodeType.element: try startElement()
                case NodeType.endElement: try endElement()
                case NodeType.text: try appendText(isBlank: false)
                case NodeType.whitespace, NodeType.significantWhitespace: try appendText(isBlank: true)
                case NodeType.cdata:
                    if blanksDropped, scalarTag != nil { throw RetryKeepingBlanks() }
                    try appendText(isBlank: false)
                case NodeType.comment, NodeType.processingInstruction:
                    if blanksDropped, scalarTag != nil { throw RetryKeepingBlanks() }
                case NodeType.documentType: try checkDocumentType()
                case NodeType.entityReference: throw entityReferenceError()
                default: continue
                }
            }
            guard let root else {
                throw PlistError(.malformed, "the document holds no property-list value", at: parserPosition())
            }
            return root
        }

        // MARK: Elements

        private mutating func startElement() throws {
            let position = currentTagPosition()
            if !checkedDocumentType { try checkDocumentType() }
            let name = xmlTextReaderConstName(reader)
            let isEmpty = xmlTextReaderIsEmptyElement(reader) == 1
            if let open = scalarTag {
                throw error("<\(Self.text(of: name))> is not allowed inside <\(open.name)>", at: position)
            }
            guard let tag = tag(named: name) else {
                throw error("unknown tag <\(Self.text(of: name))>", at: position)
            }
            try checkPlacement(of: tag, at: position)

            switch tag {
            case .plist:
                if isEmpty { throw error("empty <plist>: it must hold one value", at: position) }
                stack.append(Frame(kind: .plist, position: position, start: values.count))
            case .array, .dict:
                try countObject(at: position)
                if isEmpty {
                    try deliver(tag == .array ? .array([]) : .dictionary([:]))
                } else {
                    guard containerDepth < limits.maxDepth else {
                        throw PlistError(
                            .limitExceeded, "<\(tag.name)> nests deeper than the depth limit of \(limits.maxDepth)",
                            at: location(of: position))
                    }
                    containerDepth += 1
                    stack.append(
                        Frame(kind: tag == .array ? .array : .dictionary, position: position, start: values.count))
                }
            case .key:
                if isEmpty {
                    addKey("", at: position)
                } else {
                    beginScalar(tag, at: position)
                }
            case .string, .true, .false:
                try countObject(at: position)
                if isEmpty {
                    try deliver(tag == .string ? .string("") : .bool(tag == .true))
                } else {
                    beginScalar(tag, at: position)
                }
            case .integer, .real, .date, .data:
                try countObject(at: position)
                if isEmpty { throw error("empty <\(tag.name)/>: it needs a value", at: position) }
                beginScalar(tag, at: position)
            }
        }

        /// Checks the element may stand where it is: keys and values alternate in a dictionary,
        /// `<plist>` holds one value, keys appear only in dictionaries.
        // Inlined: called out of line from a mutating method, the whole builder was copied per element.
        @inline(__always)
        private func checkPlacement(of tag: Tag, at position: TagPosition) throws {
            // Fields are read through the index, never by copying the frame.
            let top = stack.count - 1
            guard top >= 0 else {
                if tag == .key { throw error("<key> outside a dictionary", at: position) }
                return
            }
            let held = values.count - stack[top].start
            switch stack[top].kind {
            case .dictionary:
                if held % 2 == 1 {
                    if tag == .key {
                        throw error("the key \(pendingKeyText()) has no value", at: stack[top].pendingKeyPosition)
                    }
                } else if tag != .key {
                    throw error("expected a <key> in <dict>, found <\(tag.name)>", at: position)
                }
            case .plist:
                if held > 0 {
                    throw error("<plist> holds more than one value; found another <\(tag.name)>", at: position)
                }
                if tag == .key { throw error("<key> outside a dictionary", at: position) }
            case .array:
                if tag == .key { throw error("<key> outside a dictionary", at: position) }
            }
        }

        private mutating func endElement() throws {
            if let tag = scalarTag {
                // `<string>\n</string>` and `<string></string>` look alike once libxml2 drops blank text:
                // only a second reading with blanks kept tells a whitespace-only string from an empty one.
                if blanksDropped, tag == .key || tag == .string, scalarString.isEmpty { throw RetryKeepingBlanks() }
                scalarTag = nil
                if tag == .key {
                    addKey(takeScalarString(), at: scalarPosition)
                } else {
                    try deliver(try scalarValue(tag))
                }
                return
            }
            guard let frame = stack.popLast() else {
                throw PlistError(.malformed, "a closing tag has no matching element", at: parserPosition())
            }
            switch frame.kind {
            case .plist:
                guard values.count > frame.start else {
                    throw error("empty <plist>: it must hold one value", at: frame.position)
                }
                try deliver(values.removeLast())
            case .array:
                containerDepth -= 1
                try deliver(.array(values.removeArray(from: frame.start)))
            case .dictionary:
                containerDepth -= 1
                if (values.count - frame.start) % 2 == 1 {
                    throw error("the key \(pendingKeyText()) has no value", at: frame.pendingKeyPosition)
                }
                try deliver(dictionaryOrUID(from: frame.start))
            }
        }

        private mutating func addKey(_ key: String, at position: TagPosition) {
            // Placement was checked: the top frame is a dictionary waiting for a key.
            stack[stack.count - 1].pendingKeyPosition = position
            values.append(.string(key))
        }

        private func pendingKeyText() -> String {
            guard values.count > 0, case .string(let key) = values.peek(values.count - 1) else { return "" }
            return "\"\(key)\""
        }

        /// Builds the dictionary whose keys and values alternate on the stack from `start`, at its final
        /// size; a repeated key keeps its last value. CoreFoundation reads a dictionary whose only key is
        /// `CF$UID` with an integer as a keyed-archiver UID; any non-negative 64-bit integer is taken, so
        /// every UID survives an XML round trip.
        private func dictionaryOrUID(from start: Int) -> PlistValue {
            let count = (values.count - start) / 2
            if count == 1, case .string("CF$UID") = values.peek(start),
                case .integer(let number) = values.peek(start + 1), let uid = number.uint64Value
            {
                values.removeEach(from: start) { _ in }
                return .uid(uid)
            }
            var dictionary = [String: PlistValue](minimumCapacity: count)
            var key: String?
            values.removeEach(from: start) { element in
                if let pendingKey = key {
                    dictionary[pendingKey] = element
                    key = nil
                } else if case .string(let text) = element {
                    key = text
                }
            }
            return .dictionary(dictionary)
        }

        /// Hands a finished value to the open container, or makes it the root.
        private mutating func deliver(_ value: consuming PlistValue) throws {
            if stack.isEmpty {
                root = value
            } else {
                values.append(value)
            }
        }

        private mutating func countObject(at position: TagPosition) throws {
            objectCount += 1
            guard objectCount <= limits.maxObjectCount else {
                throw PlistError(
                    .limitExceeded,
                    "the document holds more objects than the object count limit of \(limits.maxObjectCount)",
                    at: location(of: position))
            }
        }

        // Inlined for the same reason as `checkPlacement`.
        @inline(__always)
        private func tag(named name: UnsafePointer<xmlChar>?) -> Tag? {
            guard let name else { return nil }
            if let tag = names.tag(for: name) { return tag }
            // Names are interned in the reader's dictionary; compare the text should one ever not be.
            let text = Self.text(of: name)
            return Tag.allCases.first { $0.name == text }
        }

        // MARK: Scalars

        private mutating func beginScalar(_ tag: Tag, at position: TagPosition) {
            scalarTag = tag
            scalarPosition = position
            if tag == .string || tag == .key {
                scalarString = ""
            } else if !scalarBytes.isEmpty {
                scalarBytes.removeAll(keepingCapacity: true)
            }
        }

        /// Moves the string out, so the value holds the only reference.
        private mutating func takeScalarString() -> String {
            var text = ""
            swap(&text, &scalarString)
            return text
        }

        private mutating func appendText(isBlank: Bool) throws {
            guard let tag = scalarTag else {
                if isBlank { return }
                throw PlistError(.malformed, "text outside a value element", at: textPosition())
            }
            if tag == .true || tag == .false {
                throw error("<\(tag.name)> must be empty", at: scalarPosition)
            }
            guard let value = xmlTextReaderConstValue(reader) else { return }
            let text = UnsafeBufferPointer(start: value, count: strlen(value))
            if tag == .string || tag == .key {
                // Text arrives in one node unless a comment or processing instruction splits it.
                if scalarString.isEmpty {
                    scalarString = String(decoding: text, as: UTF8.self)
                } else {
                    scalarString += String(decoding: text, as: UTF8.self)
                }
            } else {
                scalarBytes.append(contentsOf: text)
            }
        }

        private mutating func scalarValue(_ tag: Tag) throws -> PlistValue {
            switch tag {
            case .string:
                return .string(takeScalarString())
            case .true, .false:
                return .bool(tag == .true)
            case .integer:
                switch ScalarParser.integer(scalarBytes) {
                case .value(let number): return .integer(number)
                case .outOfRange:
                    throw error(
                        "the integer \(Self.quoted(scalarBytes)) is out of range (\(Int64.min) to \(UInt64.max))",
                        at: scalarPosition)
                case .malformed:
                    throw error(
                        "<integer> holds \(Self.quoted(scalarBytes)), which is not an integer", at: scalarPosition)
                }
            case .real:
                guard let real = ScalarParser.real(scalarBytes) else {
                    throw error("<real> holds \(Self.quoted(scalarBytes)), which is not a number", at: scalarPosition)
                }
                return .real(real)
            case .date:
                guard let date = ScalarParser.date(scalarBytes) else {
                    throw error(
                        "<date> holds \(Self.quoted(scalarBytes)), which is not an ISO 8601 date", at: scalarPosition)
                }
                return .date(date)
            case .data:
                guard let bytes = scalarBytes.withUnsafeBytes({ Base64.decode($0) }) else {
                    throw error("<data> holds text that is not base64", at: scalarPosition)
                }
                return .data(bytes)
            case .plist, .dict, .array, .key:
                throw error("<\(tag.name)> is not a scalar", at: scalarPosition)
            }
        }

        // MARK: Document type and entities

        /// Refuses a DOCTYPE with an internal subset, as CoreFoundation refuses inline DTDs: that is
        /// where entities (billion laughs, external `SYSTEM` files) would be declared.
        private mutating func checkDocumentType() throws {
            checkedDocumentType = true
            guard let node = xmlTextReaderCurrentNode(reader), let document = node.pointee.doc,
                let subset = document.pointee.intSubset
            else { return }
            let dtd = subset.pointee
            let declaresSomething =
                dtd.children != nil || dtd.entities != nil || dtd.pentities != nil || dtd.elements != nil
                || dtd.attributes != nil || dtd.notations != nil
            if declaresSomething {
                throw PlistError(
                    .malformed,
                    "the DOCTYPE declares an internal subset; inline DTDs and entity declarations are not supported",
                    at: SourceLocator(source).position(ofFirst: Array("<!DOCTYPE".utf8)) ?? parserPosition())
            }
        }

        private func entityReferenceError() -> PlistError {
            let name = Self.text(of: xmlTextReaderConstName(reader))
            return PlistError(
                .malformed,
                "the entity reference &\(name); is not allowed "
                    + "(only &lt; &gt; &amp; &apos; &quot; and character references are)",
                at: SourceLocator(source).position(ofFirst: Array("&\(name);".utf8)) ?? parserPosition())
        }

        // MARK: Positions

        /// Records the start tag libxml2 just reported and returns where it is.
        private mutating func currentTagPosition() -> TagPosition {
            var line = 0
            if let node = xmlTextReaderCurrentNode(reader) {
                line = Int(node.pointee.line)
                // Element lines saturate at 65535; past that, the parser's line is the best estimate.
                if line == Int(UInt16.max) { line = Int(xmlTextReaderGetParserLineNumber(reader)) }
            }
            if line == lastTagLine {
                tagsOnLastLine += 1
            } else {
                lastTagLine = line
                tagsOnLastLine = 0
            }
            return TagPosition(line: line, ordinal: tagsOnLastLine)
        }

        private func location(of position: TagPosition) -> PlistError.Position {
            SourceLocator(source).position(ofStartTag: position.ordinal, onLine: position.line)
        }

        private func error(_ message: String, at position: TagPosition) -> PlistError {
            PlistError(.malformed, message, at: location(of: position))
        }

        /// Where stray text is. libxml2 stamps a text node with the line the parser had reached,
        /// which is past the text's own newlines; counting them back finds the line it starts on.
        private func textPosition() -> PlistError.Position {
            guard let node = xmlTextReaderCurrentNode(reader), let content = xmlTextReaderConstValue(reader) else {
                return parserPosition()
            }
            let text = UnsafeBufferPointer(start: content, count: strlen(content))
            let newlines = text.count { $0 == UInt8(ascii: "\n") }
            let leadingNewlines = text.prefix { $0 <= 0x20 }.count { $0 == UInt8(ascii: "\n") }
            let line = Int(xmlGetLineNo(node)) - newlines + leadingNewlines
            guard line > 0 else { return parserPosition() }
            return SourceLocator(source).position(ofTextOnLine: line) ?? .text(line: line, column: 1)
        }

        /// Where libxml2's parser is (it reads ahead of the node being reported).
        private func parserPosition() -> PlistError.Position {
            .text(
                line: max(1, Int(xmlTextReaderGetParserLineNumber(reader))),
                column: max(1, Int(xmlTextReaderGetParserColumnNumber(reader))))
        }

        private static func text(of name: UnsafePointer<xmlChar>?) -> String {
            guard let name else { return "" }
            return String(decoding: UnsafeBufferPointer(start: name, count: strlen(name)), as: UTF8.self)
        }

        /// The text in quotes, shortened so an error message stays readable.
        private static func quoted(_ bytes: [UInt8]) -> String {
            let text = String(decoding: bytes.prefix(64), as: UTF8.self)
            return "\"" + text + (bytes.count > 64 ? "…" : "") + "\""
        }
    }
}

private func strlen(_ text: UnsafePointer<xmlChar>) -> Int {
    // UInt8 and CChar may alias: they are the signed and unsigned forms of one type.
    Glibc.strlen(UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self))
}

extension TextEncodingSniffer.Encoding {
    var displayName: String {
        switch self {
        case .utf8: "UTF-8"
        case .utf16BigEndian: "UTF-16BE"
        case .utf16LittleEndian: "UTF-16LE"
        case .utf32BigEndian: "UTF-32BE"
        case .utf32LittleEndian: "UTF-32LE"
        }
    }
}
