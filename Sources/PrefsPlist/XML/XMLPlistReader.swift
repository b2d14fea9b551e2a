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
            let walker = XMLPlistReader.TreeBuilder(
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
        /// Whether ``first`` is set; checked after every node, it is cheaper to read than the error.
        @exclusivity(unchecked) private(set) var hasError = false

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
            hasError = true
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
    ///
    /// A name is found with one table load and one comparison, no branch on which name it is: the tags
    /// of a real document come in no predictable order, and the chains of comparisons that first picked
    /// the tag mispredicted on most elements.
    struct InternedNames {
        private static let slotCount = 64
        /// The interned name in each slot, as an address (0 for none), and the tag it names.
        private let slotNames: [UInt]
        private let slotTags: [Tag]
        /// A name's slot is its address shifted right by this much, modulo ``slotCount``.
        private let shift: Int

        init(reader: xmlTextReaderPtr) {
            var interned: [(address: UInt, tag: Tag)] = []
            for tag in Tag.allCases {
                let pointer = tag.name.withCString { name in
                    name.withMemoryRebound(to: xmlChar.self, capacity: tag.name.utf8.count + 1) {
                        xmlTextReaderConstString(reader, $0)
                    }
                }
                if let pointer { interned.append((UInt(bitPattern: pointer), tag)) }
            }
            // The names sit a few bytes apart in the dictionary's pool; some shift spreads them over
            // distinct slots. Should none, every name is looked up by its text instead.
            var names = [UInt](repeating: 0, count: Self.slotCount)
            var tags = [Tag](repeating: .plist, count: Self.slotCount)
            var chosenShift = 0
            for shift in 0..<24 {
                var occupied: UInt64 = 0
                for (address, _) in interned { occupied |= 1 << UInt64(Self.slot(of: address, shift: shift)) }
                guard occupied.nonzeroBitCount == interned.count else { continue }
                for (address, tag) in interned {
                    names[Self.slot(of: address, shift: shift)] = address
                    tags[Self.slot(of: address, shift: shift)] = tag
                }
                chosenShift = shift
                break
            }
            slotNames = names
            slotTags = tags
            shift = chosenShift
        }

        private static func slot(of address: UInt, shift: Int) -> Int {
            Int(truncatingIfNeeded: address >> UInt(shift)) & (slotCount - 1)
        }

        /// The tag whose interned name is `name`, or `nil` when `name` is not one of them.
        @inline(__always)
        func tag(for name: UnsafePointer<xmlChar>) -> Tag? {
            let address = UInt(bitPattern: name)
            let slot = Self.slot(of: address, shift: shift)
            return slotNames[slot] == address ? slotTags[slot] : nil
        }
    }

    /// Walks one reader's node stream and builds the value.
    ///
    /// A class rather than a struct: its state is a few hundred bytes, which a struct's methods were
    /// copying per element whenever the optimizer could not prove a non-mutating call harmless.
    /// Only its own thread touches it, so its stored properties skip dynamic exclusivity checks.
    final class TreeBuilder {
        /// The tree node types the reader reports (`xmlElementType`), as raw values to switch on.
        private enum NodeType {
            static let element = XML_ELEMENT_NODE.rawValue
            static let text = XML_TEXT_NODE.rawValue
            static let cdata = XML_CDATA_SECTION_NODE.rawValue
            static let entityReference = XML_ENTITY_REF_NODE.rawValue
            static let processingInstruction = XML_PI_NODE.rawValue
            static let comment = XML_COMMENT_NODE.rawValue
            static let documentType = XML_DOCUMENT_TYPE_NODE.rawValue
            static let dtd = XML_DTD_NODE.rawValue
        }

        /// Where a start tag is: its line, and how many start tags precede it on that line.
        struct TagPosition {
            var line: Int
            var ordinal: Int
        }

        private enum FrameKind { case plist, array, dictionary }

        /// An open `<plist>`, `<array>` or `<dict>`. Its children sit on `values` from `start` up; a
        /// dictionary's keys sit on `keys` from `keyStart` up, one more than its values while a key
        /// waits for its value.
        private struct Frame {
            var kind: FrameKind
            var node: xmlNodePtr
            var position: TagPosition
            var start: Int
            var keyStart: Int
        }

        private let reader: xmlTextReaderPtr
        private let source: UnsafeRawBufferPointer
        private let limits: PlistLimits
        private let errors: ErrorSink
        private let names: InternedNames
        /// Whether libxml2 was told to drop blank text nodes (see ``XMLPlistReader/RetryKeepingBlanks``).
        private let blanksDropped: Bool

        @exclusivity(unchecked) private var stack: [Frame] = []
        private let values: ValueStack<PlistValue>
        private let keys: ValueStack<String>
        @exclusivity(unchecked) private var containerDepth = 0
        @exclusivity(unchecked) private var objectCount = 0
        @exclusivity(unchecked) private var root: PlistValue?
        @exclusivity(unchecked) private var checkedDocumentType = false
        /// Where the last key read starts. Only the innermost dictionary's last key can be waiting for a
        /// value when an error names one: an outer dictionary's key gets the inner container as its value.
        @exclusivity(unchecked) private var pendingKeyPosition = TagPosition(line: 0, ordinal: 0)

        /// The innermost element that is open (started, not empty, not yet ended): the reader reports its
        /// end as this same node (see ``run()``).
        @exclusivity(unchecked) private var openElement: xmlNodePtr?

        /// The scalar element being read, its start tag, and its text so far: strings and keys
        /// straight into a `String`, the rest as bytes to parse.
        @exclusivity(unchecked) private var scalarTag: Tag?
        @exclusivity(unchecked) private var scalarPosition = TagPosition(line: 0, ordinal: 0)
        @exclusivity(unchecked) private var scalarString = ""
        private let scalarBytes = TextBuffer(capacity: 256)

        @exclusivity(unchecked) private var lastTagLine = 0
        @exclusivity(unchecked) private var tagsOnLastLine = 0

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
            stack.reserveCapacity(16)
            // A value takes 40 bytes of XML or more (`<key>k</key><true/>` and its indentation), so this
            // many children fit every container of most documents without the stacks growing: each
            // growth copies the stack and, past a kilobyte, makes malloc consolidate its free lists.
            let expectedChildren = min(max(source.count / 64, 256), 1 << 16)
            values = ValueStack(capacity: expectedChildren)
            keys = ValueStack(capacity: expectedChildren)
        }

        func run() throws -> PlistValue {
            while true {
                let status = xmlTextReaderRead(reader)
                if errors.hasError, let error = errors.first { throw error }
                if status == 0 { break }
                guard status > 0 else {
                    throw PlistError(.malformed, "libxml2 stopped reading the document", at: parserPosition())
                }
                // The node's own type, read from the node, rather than xmlTextReaderNodeType: that call
                // also scans every text node for blanks, and cost more than the rest of the dispatch.
                // The one thing it adds, start or end of an element, follows from the nesting: the reader
                // reports an element's end as the node it reported starting, which is then the innermost
                // open element, while a node it starts is a new one. Empty elements (`<true/>`) report
                // no end and are never open.
                guard let node = xmlTextReaderCurrentNode(reader) else { continue }
                switch node.pointee.type.rawValue {
                case NodeType.element:
                    if node == openElement { try endElement() } else { try startElement(node) }
                case NodeType.text: try appendText(node.pointee.content, isCharacterData: false)
                case NodeType.cdata:
                    if blanksDropped, scalarTag != nil { throw RetryKeepingBlanks() }
                    try appendText(node.pointee.content, isCharacterData: true)
                case NodeType.comment, NodeType.processingInstruction:
                    if blanksDropped, scalarTag != nil { throw RetryKeepingBlanks() }
                case NodeType.documentType, NodeType.dtd: try checkDocumentType()
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

        private func startElement(_ node: xmlNodePtr) throws {
            let position = tagPosition(of: node)
            if !checkedDocumentType { try checkDocumentType() }
            // The node's own name is what xmlTextReaderConstName returns unless a prefix must be added
            // (`<x:string>`, which then matches no plist tag); reading it spares a call per element.
            let name: UnsafePointer<xmlChar>?
            if let namespace = node.pointee.ns, namespace.pointee.prefix != nil {
                name = xmlTextReaderConstName(reader)
            } else {
                name = node.pointee.name
            }
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
                stack.append(
                    Frame(kind: .plist, node: node, position: position, start: values.count, keyStart: keys.count))
                openElement = node
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
                        Frame(
                            kind: tag == .array ? .array : .dictionary, node: node, position: position,
                            start: values.count, keyStart: keys.count))
                    openElement = node
                }
            case .key:
                if isEmpty {
                    addKey("", at: position)
                } else {
                    beginScalar(tag, node: node, at: position)
                }
            case .string, .true, .false:
                try countObject(at: position)
                if isEmpty {
                    try deliver(tag == .string ? .string("") : .bool(tag == .true))
                } else {
                    beginScalar(tag, node: node, at: position)
                }
            case .integer, .real, .date, .data:
                try countObject(at: position)
                if isEmpty { throw error("empty <\(tag.name)/>: it needs a value", at: position) }
                beginScalar(tag, node: node, at: position)
            }
        }

        /// Checks the element may stand where it is: keys and values alternate in a dictionary,
        /// `<plist>` holds one value, keys appear only in dictionaries.
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
                if keys.count - stack[top].keyStart > held {
                    if tag == .key {
                        throw error("the key \(pendingKeyText()) has no value", at: pendingKeyPosition)
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

        private func endElement() throws {
            if let tag = scalarTag {
                // `<string>\n</string>` and `<string></string>` look alike once libxml2 drops blank text:
                // only a second reading with blanks kept tells a whitespace-only string from an empty one.
                if blanksDropped, tag == .key || tag == .string, scalarString.isEmpty { throw RetryKeepingBlanks() }
                scalarTag = nil
                openElement = stack.last?.node
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
            openElement = stack.last?.node
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
                if keys.count - frame.keyStart > values.count - frame.start {
                    throw error("the key \(pendingKeyText()) has no value", at: pendingKeyPosition)
                }
                try deliver(dictionaryOrUID(keysFrom: frame.keyStart, valuesFrom: frame.start))
            }
        }

        private func addKey(_ key: consuming String, at position: TagPosition) {
            // Placement was checked: the top frame is a dictionary waiting for a key.
            pendingKeyPosition = position
            keys.append(key)
        }

        private func pendingKeyText() -> String {
            guard keys.count > 0 else { return "" }
            return "\"\(keys.peek(keys.count - 1))\""
        }

        /// Builds the dictionary whose keys are on `keys` from `keyStart` and whose values are on `values`
        /// from `start`, at its final size; a repeated key keeps its last value. CoreFoundation reads a
        /// dictionary whose only key is `CF$UID` with an integer as a keyed-archiver UID; any non-negative
        /// 64-bit integer is taken, so every UID survives an XML round trip.
        private func dictionaryOrUID(keysFrom keyStart: Int, valuesFrom start: Int) -> PlistValue {
            let count = values.count - start
            if count == 1, keys.peek(keyStart) == "CF$UID", case .integer(let number) = values.peek(start),
                let uid = number.uint64Value
            {
                _ = keys.removeLast()
                _ = values.removeLast()
                return .uid(uid)
            }
            let dictionary = keys.removeMoving(from: keyStart) { keyBase, _ in
                values.removeMoving(from: start) { valueBase, count in
                    PlistDictionary(
                        MovedPairs(keys: keyBase, values: valueBase, count: count), uniquingKeysWith: { $1 })
                }
            }
            return .dictionary(dictionary)
        }

        /// Hands a finished value to the open container, or makes it the root.
        private func deliver(_ value: consuming PlistValue) throws {
            if stack.isEmpty {
                root = value
            } else {
                values.append(value)
            }
        }

        @inline(__always)
        private func countObject(at position: TagPosition) throws {
            objectCount += 1
            guard objectCount <= limits.maxObjectCount else { throw objectCountError(at: position) }
        }

        private func objectCountError(at position: TagPosition) -> PlistError {
            PlistError(
                .limitExceeded,
                "the document holds more objects than the object count limit of \(limits.maxObjectCount)",
                at: location(of: position))
        }

        @inline(__always)
        private func tag(named name: UnsafePointer<xmlChar>?) -> Tag? {
            guard let name else { return nil }
            if let tag = names.tag(for: name) { return tag }
            return Self.uninternedTag(named: name)
        }

        /// Names are interned in the reader's dictionary; this compares the text should one ever not be.
        @inline(never)
        private static func uninternedTag(named name: UnsafePointer<xmlChar>) -> Tag? {
            let text = text(of: name)
            return Tag.allCases.first { $0.name == text }
        }

        // MARK: Scalars

        private func beginScalar(_ tag: Tag, node: xmlNodePtr, at position: TagPosition) {
            scalarTag = tag
            openElement = node
            scalarPosition = position
            if tag == .string || tag == .key {
                scalarString = ""
            } else {
                scalarBytes.removeAll()
            }
        }

        /// Moves the string out, so the value holds the only reference.
        private func takeScalarString() -> String {
            var text = ""
            swap(&text, &scalarString)
            return text
        }

        /// Takes the text of a text or CDATA node, `content` (libxml2 never leaves it null).
        private func appendText(_ content: UnsafePointer<xmlChar>?, isCharacterData: Bool) throws {
            guard let content else { return }
            let text = UnsafeBufferPointer(start: content, count: strlen(content))
            guard let tag = scalarTag else {
                // White space between elements is not a value (as xmlIsBlankNode judges it for
                // xmlTextReaderNodeType); a CDATA section, even a blank one, or other text is misplaced.
                if !isCharacterData, text.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
                    return
                }
                throw PlistError(.malformed, "text outside a value element", at: textPosition())
            }
            if tag == .true || tag == .false {
                throw error("<\(tag.name)> must be empty", at: scalarPosition)
            }
            if tag == .string || tag == .key {
                // Text arrives in one node unless a comment or processing instruction splits it.
                if scalarString.isEmpty {
                    scalarString = String(decoding: text, as: UTF8.self)
                } else {
                    scalarString += String(decoding: text, as: UTF8.self)
                }
            } else {
                scalarBytes.append(text)
            }
        }

        private func scalarValue(_ tag: Tag) throws -> PlistValue {
            // Valid until the next element's text replaces it.
            let text = scalarBytes.bytes
            switch tag {
            case .string:
                return .string(takeScalarString())
            case .true, .false:
                return .bool(tag == .true)
            case .integer:
                switch ScalarParser.integer(text) {
                case .value(let number): return .integer(number)
                case .outOfRange:
                    throw error(
                        "the integer \(Self.quoted(text)) is out of range (\(Int64.min) to \(UInt64.max))",
                        at: scalarPosition)
                case .malformed:
                    throw error("<integer> holds \(Self.quoted(text)), which is not an integer", at: scalarPosition)
                }
            case .real:
                guard let real = ScalarParser.real(text) else {
                    throw error("<real> holds \(Self.quoted(text)), which is not a number", at: scalarPosition)
                }
                return .real(real)
            case .date:
                guard let date = ScalarParser.date(text) else {
                    throw error("<date> holds \(Self.quoted(text)), which is not an ISO 8601 date", at: scalarPosition)
                }
                return .date(date)
            case .data:
                guard let bytes = Base64.decode(UnsafeRawBufferPointer(text)) else {
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
        private func checkDocumentType() throws {
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

        /// Records the start tag libxml2 just reported, `node`, and returns where it is.
        @inline(__always)
        private func tagPosition(of node: xmlNodePtr) -> TagPosition {
            var line = Int(node.pointee.line)
            // Element lines saturate at 65535; past that, the parser's line is the best estimate.
            if line == Int(UInt16.max) { line = Int(xmlTextReaderGetParserLineNumber(reader)) }
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
        private static func quoted(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
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
