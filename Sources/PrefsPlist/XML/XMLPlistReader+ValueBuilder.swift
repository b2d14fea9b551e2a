// SPDX-License-Identifier: Apache-2.0
internal import CPrefsXML2

extension XMLPlistReader {
    /// Builds the value from the events of one document: start and end tags, runs of text, CDATA sections,
    /// comments and processing instructions. What a plist element means is defined here once, for both readers
    /// that produce the events: libxml2's SAX2 parser (``SAXReceiver``) and the Swift tokenizer (``FastReader``).
    ///
    /// The SAX callbacks cannot be thrown through, so the first error (libxml2's or a plist rule's) is kept in
    /// ``failure``, every later event is ignored, and ``finish()`` throws it. Events come in document order, so
    /// the error reported is the first one in the document. The producer says where an event is (the line it
    /// has reached), which only error messages use.
    ///
    /// Only the parsing thread touches it, so its stored properties skip dynamic exclusivity checks.
    final class ValueBuilder {
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
            var position: TagPosition
            var start: Int
            var keyStart: Int
        }

        /// The most text one run (between two comments, processing instructions or CDATA sections) of a
        /// value may hold: what libxml2 allows one text node without `XML_PARSE_HUGE`, which a tree
        /// builder enforces and a SAX handler must.
        static let maxTextRunLength = Int(XML_MAX_TEXT_LENGTH)

        private let source: UnsafeRawBufferPointer
        private let limits: PlistLimits
        /// Where the producer is, for the errors that name no element (its line and column).
        private let producerPosition: () -> PlistError.Position

        @exclusivity(unchecked) private var stack: [Frame] = []
        private let values: ValueStack<PlistValue>
        private let keys: ValueStack<String>
        @exclusivity(unchecked) private var containerDepth = 0
        @exclusivity(unchecked) private var objectCount = 0
        @exclusivity(unchecked) private var root: PlistValue?
        /// Where the last key read starts. Only the innermost dictionary's last key can be waiting for a
        /// value when an error names one: an outer dictionary's key gets the inner container as its value.
        @exclusivity(unchecked) private var pendingKeyPosition = TagPosition(line: 0, ordinal: 0)

        /// Set by the start of an empty element (`<true/>`), which is complete at once: its end is reported
        /// right after its start, and that end is then skipped.
        @exclusivity(unchecked) private var emptyElementEndPending = false

        /// The scalar element being read, its start tag, and its text so far.
        @exclusivity(unchecked) private var scalarTag: Tag?
        @exclusivity(unchecked) private var scalarPosition = TagPosition(line: 0, ordinal: 0)
        private let scalarText = TextBuffer(capacity: 256)
        /// The bytes of text since the scalar started or since its last comment, processing
        /// instruction or CDATA section (see ``maxTextRunLength``).
        @exclusivity(unchecked) private var textRunLength = 0

        @exclusivity(unchecked) private var lastTagLine = 0
        @exclusivity(unchecked) private var tagsOnLastLine = 0

        /// The first error, libxml2's or ours.
        @exclusivity(unchecked) private(set) var failure: PlistError?
        /// Whether ``failure`` is set; checked by every event, it is cheaper to read than the error.
        @exclusivity(unchecked) private(set) var hasFailed = false

        /// - Parameters:
        ///   - source: The document's text, for finding the column of an error.
        ///   - limits: The nesting depth and object count to enforce.
        ///   - producerPosition: Where the producer of the events is now; called only to name an error's position.
        init(
            source: UnsafeRawBufferPointer, limits: PlistLimits,
            producerPosition: @escaping () -> PlistError.Position
        ) {
            self.source = source
            self.limits = limits
            self.producerPosition = producerPosition
            stack.reserveCapacity(16)
            // A value takes 40 bytes of XML or more (`<key>k</key><true/>` and its indentation), so this
            // many children fit every container of most documents without the stacks growing: each
            // growth copies the stack and, past a kilobyte, makes malloc consolidate its free lists.
            let expectedChildren = min(max(source.count / 64, 256), 1 << 16)
            values = ValueStack(capacity: expectedChildren)
            keys = ValueStack(capacity: expectedChildren)
        }

        /// The root value, once every event of the document has been handed over.
        func finish() throws(PlistError) -> PlistValue {
            if let failure { throw failure }
            guard let root else {
                throw PlistError(.malformed, "the document holds no property-list value", at: producerPosition())
            }
            return root
        }

        // MARK: Failing

        /// Keeps `error` if it is the first.
        func fail(_ error: PlistError) {
            guard !hasFailed else { return }
            failure = error
            hasFailed = true
        }

        // MARK: Elements

        /// The start tag of a plist element whose `>` is on `line`; `isEmpty` for `<x/>`.
        func startElement(_ tag: Tag, isEmpty: Bool, line: Int) {
            if hasFailed { return }
            do throws(PlistError) {
                try handleStart(tag, isEmpty: isEmpty, position: tagPosition(line: line))
            } catch {
                fail(error)
            }
        }

        /// The start tag of an element that is no plist element (`<x:string>` is none either), on `line`.
        func unknownElement(_ qualifiedName: String, line: Int) {
            if hasFailed { return }
            let position = tagPosition(line: line)
            if let open = scalarTag {
                fail(error("<\(qualifiedName)> is not allowed inside <\(open.name)>", at: position))
            } else {
                fail(error("unknown tag <\(qualifiedName)>", at: position))
            }
        }

        func endElement() {
            if hasFailed { return }
            if emptyElementEndPending {
                emptyElementEndPending = false
                return
            }
            do throws(PlistError) {
                try handleEnd()
            } catch {
                fail(error)
            }
        }

        private func handleStart(_ tag: Tag, isEmpty: Bool, position: TagPosition) throws(PlistError) {
            if let open = scalarTag {
                throw error("<\(tag.name)> is not allowed inside <\(open.name)>", at: position)
            }
            try checkPlacement(of: tag, at: position)
            emptyElementEndPending = isEmpty

            switch tag {
            case .plist:
                if isEmpty { throw error("empty <plist>: it must hold one value", at: position) }
                stack.append(Frame(kind: .plist, position: position, start: values.count, keyStart: keys.count))
            case .array, .dict:
                try countObject(at: position)
                if isEmpty {
                    deliver(tag == .array ? .array([]) : .dictionary([:]))
                } else {
                    guard containerDepth < limits.maxDepth else {
                        throw PlistError(
                            .limitExceeded, "<\(tag.name)> nests deeper than the depth limit of \(limits.maxDepth)",
                            at: location(of: position))
                    }
                    containerDepth += 1
                    stack.append(
                        Frame(
                            kind: tag == .array ? .array : .dictionary, position: position, start: values.count,
                            keyStart: keys.count))
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
                    deliver(tag == .string ? .string("") : .bool(tag == .true))
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
        @inline(__always)
        private func checkPlacement(of tag: Tag, at position: TagPosition) throws(PlistError) {
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

        /// The end of a value element whose whole text is `text`, never handed over as ``characters(_:line:)``:
        /// what that and ``endElement()`` do, without first copying the text (the fast path's usual case).
        func endElement(text: UnsafeBufferPointer<UInt8>) {
            if hasFailed { return }
            guard let tag = scalarTag, scalarText.count == 0, !emptyElementEndPending else {
                if !text.isEmpty { characters(text, line: 0) }
                endElement()
                return
            }
            if !text.isEmpty, !admitsText(text, in: tag) { return }
            scalarTag = nil
            do throws(PlistError) {
                try finishScalar(tag, text: text)
            } catch {
                fail(error)
            }
        }

        private func handleEnd() throws(PlistError) {
            if let tag = scalarTag {
                scalarTag = nil
                try finishScalar(tag, text: scalarText.bytes)
                return
            }
            guard let frame = stack.popLast() else {
                throw PlistError(.malformed, "a closing tag has no matching element", at: producerPosition())
            }
            switch frame.kind {
            case .plist:
                guard values.count > frame.start else {
                    throw error("empty <plist>: it must hold one value", at: frame.position)
                }
                deliver(values.removeLast())
            case .array:
                containerDepth -= 1
                deliver(.array(values.removeArray(from: frame.start)))
            case .dictionary:
                containerDepth -= 1
                if keys.count - frame.keyStart > values.count - frame.start {
                    throw error("the key \(pendingKeyText()) has no value", at: pendingKeyPosition)
                }
                deliver(dictionaryOrUID(keysFrom: frame.keyStart, valuesFrom: frame.start))
            }
        }

        /// A key's or a scalar's text is complete: the key waits for its value, the scalar is one.
        @inline(__always)
        private func finishScalar(_ tag: Tag, text: UnsafeBufferPointer<UInt8>) throws(PlistError) {
            if tag == .key {
                addKey(String(decoding: text, as: UTF8.self), at: scalarPosition)
            } else {
                deliver(try scalarValue(tag, text: text))
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
        private func deliver(_ value: consuming PlistValue) {
            if stack.isEmpty {
                root = value
            } else {
                values.append(value)
            }
        }

        @inline(__always)
        private func countObject(at position: TagPosition) throws(PlistError) {
            objectCount += 1
            guard objectCount <= limits.maxObjectCount else { throw objectCountError(at: position) }
        }

        private func objectCountError(at position: TagPosition) -> PlistError {
            PlistError(
                .limitExceeded,
                "the document holds more objects than the object count limit of \(limits.maxObjectCount)",
                at: location(of: position))
        }

        // MARK: Text

        private func beginScalar(_ tag: Tag, at position: TagPosition) {
            scalarTag = tag
            scalarPosition = position
            scalarText.removeAll()
            textRunLength = 0
        }

        /// A piece of a run of text, with the producer's line at its end (libxml2 hands a long run over in several
        /// calls, and a reference on its own).
        func characters(_ text: UnsafeBufferPointer<UInt8>, line: Int) {
            if hasFailed { return }
            guard let tag = scalarTag else {
                // White space between elements is not a value; other text is misplaced.
                for byte in text where !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D) {
                    fail(
                        PlistError(.malformed, "text outside a value element", at: strayTextPosition(text, line: line)))
                    return
                }
                return
            }
            appendText(text, in: tag)
        }

        /// A CDATA section, with the producer's line at its end: text inside a value, misplaced anywhere else even
        /// when blank.
        func characterData(_ text: UnsafeBufferPointer<UInt8>, line: Int) {
            if hasFailed { return }
            guard let tag = scalarTag else {
                fail(
                    PlistError(
                        .malformed, "text outside a value element", at: strayCharacterDataPosition(text, line: line)))
                return
            }
            appendText(text, in: tag)
            // The section is a text node of its own; the text after it starts a new one.
            textRunLength = 0
        }

        @inline(__always)
        private func appendText(_ text: UnsafeBufferPointer<UInt8>, in tag: Tag) {
            if admitsText(text, in: tag) { scalarText.append(text) }
        }

        /// Whether `text` may be part of the value `tag` (failing if not): `<true>` and `<false>` hold none, and a run
        /// holds at most ``maxTextRunLength`` bytes.
        @inline(__always)
        private func admitsText(_ text: UnsafeBufferPointer<UInt8>, in tag: Tag) -> Bool {
            if tag == .true || tag == .false {
                fail(error("<\(tag.name)> must be empty", at: scalarPosition))
                return false
            }
            textRunLength += text.count
            if textRunLength > Self.maxTextRunLength {
                fail(
                    PlistError(
                        .limitExceeded,
                        "the text of <\(tag.name)> runs past \(Self.maxTextRunLength) bytes, libxml2's limit for one "
                            + "text node", at: location(of: scalarPosition)))
                return false
            }
            return true
        }

        /// Comments and processing instructions are skipped (inside a value as well, where they split its
        /// text). Those in an internal DTD subset are refused: the producer reports them as declarations.
        func commentOrProcessingInstruction() {
            if hasFailed { return }
            textRunLength = 0
        }

        /// The value of the scalar `tag` whose text is `text`.
        private func scalarValue(_ tag: Tag, text: UnsafeBufferPointer<UInt8>) throws(PlistError) -> PlistValue {
            switch tag {
            case .string:
                return .string(String(decoding: text, as: UTF8.self))
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

        /// Refuses a DOCTYPE with an internal subset that declares anything, as CoreFoundation refuses
        /// inline DTDs: that is where entities (billion laughs, external `SYSTEM` files) would be
        /// declared. libxml2 reports it from inside its reading of the subset, so its parser stops at the next
        /// callback; nothing declared is ever used (no entity is looked up).
        func internalSubsetDeclaration() {
            fail(
                PlistError(
                    .malformed,
                    "the DOCTYPE declares an internal subset; inline DTDs and entity declarations are not supported",
                    at: SourceLocator(source).position(ofFirst: Array("<!DOCTYPE".utf8)) ?? producerPosition()))
        }

        /// A reference to an entity other than the five predefined ones. libxml2 reports it as an error
        /// first; this is the rule should it not.
        func entityReference(_ name: String) {
            if hasFailed { return }
            fail(
                PlistError(
                    .malformed,
                    "the entity reference &\(name); is not allowed "
                        + "(only &lt; &gt; &amp; &apos; &quot; and character references are)",
                    at: SourceLocator(source).position(ofFirst: Array("&\(name);".utf8)) ?? producerPosition()))
        }

        // MARK: Positions

        /// Records a start tag whose end is on `line` (what libxml2's tree builder records for it) and returns
        /// where it is.
        @inline(__always)
        private func tagPosition(line: Int) -> TagPosition {
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

        /// Where stray text starts. The text is reported with the line past its own newlines; counting them back
        /// finds the line of its first character that is not blank.
        private func strayTextPosition(_ text: UnsafeBufferPointer<UInt8>, line: Int) -> PlistError.Position {
            let newlines = text.count { $0 == UInt8(ascii: "\n") }
            let leadingNewlines = text.prefix { $0 <= 0x20 }.count { $0 == UInt8(ascii: "\n") }
            let line = line - newlines + leadingNewlines
            guard line > 0 else { return producerPosition() }
            return SourceLocator(source).position(ofTextOnLine: line) ?? .text(line: line, column: 1)
        }

        /// Where a misplaced CDATA section starts: it is reported at its end, past the newlines of its text.
        private func strayCharacterDataPosition(_ text: UnsafeBufferPointer<UInt8>, line: Int) -> PlistError.Position {
            let line = line - text.count { $0 == UInt8(ascii: "\n") }
            guard line > 0 else { return producerPosition() }
            return SourceLocator(source).position(ofCharacterDataOnLine: line) ?? .text(line: line, column: 1)
        }

        /// The text in quotes, shortened so an error message stays readable.
        private static func quoted(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
            let text = String(decoding: bytes.prefix(64), as: UTF8.self)
            return "\"" + text + (bytes.count > 64 ? "…" : "") + "\""
        }
    }
}
