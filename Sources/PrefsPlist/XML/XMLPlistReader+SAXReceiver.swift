// SPDX-License-Identifier: Apache-2.0
internal import CPrefsXML2

extension XMLPlistReader {
    /// What libxml2's SAX2 callbacks call: it turns each event into the ``ValueBuilder``'s terms (an interned name
    /// into a tag, the parser's cursor into `<x/>` or `<x>`, its line into a position) and stops the parser at the
    /// first error.
    ///
    /// A class rather than a struct: it is the parser's user data, reached through one pointer from every callback.
    /// Only the parsing thread touches it.
    final class SAXReceiver {
        let builder: ValueBuilder
        private let library: LibXML2
        private let context: xmlParserCtxtPtr
        private let names: InternedNames

        init(context: xmlParserCtxtPtr, library: LibXML2, source: UnsafeRawBufferPointer, limits: PlistLimits) {
            self.context = context
            self.library = library
            names = InternedNames(dictionary: context.pointee.dict, library: library)
            builder = ValueBuilder(source: source, limits: limits) { Self.position(of: context) }
        }

        /// The root value once libxml2 has parsed the document, returning `parserStatus`.
        func finish(parserStatus: Int32) throws(PlistError) -> PlistValue {
            if let failure = builder.failure { throw failure }
            guard parserStatus == 0, context.pointee.wellFormed != 0 else {
                throw PlistError(.malformed, "libxml2 stopped reading the document", at: Self.position(of: context))
            }
            return try builder.finish()
        }

        /// Where libxml2's parser is.
        private static func position(of context: xmlParserCtxtPtr) -> PlistError.Position {
            guard let input = context.pointee.input else { return .text(line: 1, column: 1) }
            return .text(line: max(1, Int(input.pointee.line)), column: max(1, Int(input.pointee.col)))
        }

        /// The line libxml2's parser has reached.
        private var line: Int { Int(context.pointee.input.pointee.line) }

        // MARK: Stopping

        /// Whether an error is already kept; the parser is then stopped, if it was not yet. libxml2 is ready for a
        /// stop in a SAX callback, not inside its error reporting, so an error it reports stops it at the next one.
        @inline(__always)
        private func stoppedAfterFailure() -> Bool {
            guard builder.hasFailed else { return false }
            library.stopParser(context)
            return true
        }

        @inline(__always)
        private func stopIfFailed() {
            if builder.hasFailed { library.stopParser(context) }
        }

        // MARK: Events

        func startElement(_ localName: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?) {
            if stoppedAfterFailure() { return }
            // A prefixed name (`<x:string>`) is no plist tag.
            if prefix == nil, let tag = names.tag(for: localName) ?? Self.uninternedTag(named: localName) {
                // libxml2 calls back with the start tag read up to its `/>` or `>`.
                let isEmpty = context.pointee.input.pointee.cur.pointee == UInt8(ascii: "/")
                builder.startElement(tag, isEmpty: isEmpty, line: line)
            } else {
                builder.unknownElement(Self.qualifiedName(localName, prefix), line: line)
            }
            stopIfFailed()
        }

        func endElement() {
            if stoppedAfterFailure() { return }
            builder.endElement()
            stopIfFailed()
        }

        func characters(_ text: UnsafeBufferPointer<UInt8>) {
            if stoppedAfterFailure() { return }
            builder.characters(text, line: line)
            stopIfFailed()
        }

        func characterData(_ text: UnsafeBufferPointer<UInt8>) {
            if stoppedAfterFailure() { return }
            builder.characterData(text, line: line)
            stopIfFailed()
        }

        /// Comments and processing instructions are skipped, except in an internal DTD subset, which is refused.
        func commentOrProcessingInstruction() {
            if stoppedAfterFailure() { return }
            if context.pointee.inSubset != 0 {
                builder.internalSubsetDeclaration()
                return
            }
            builder.commentOrProcessingInstruction()
        }

        /// A declaration in the internal subset: refused, from inside libxml2's reading of the subset.
        func internalSubsetDeclaration() {
            builder.internalSubsetDeclaration()
        }

        func entityReference(_ name: UnsafePointer<xmlChar>?) {
            if stoppedAfterFailure() { return }
            builder.entityReference(Self.text(of: name))
            stopIfFailed()
        }

        /// Keeps libxml2's error if it is the first. The parser is stopped at the next callback: many errors are
        /// reported from the middle of libxml2's scanning, where stopping would free the text it is reading.
        func record(_ error: xmlError) {
            // Warnings (an unusual namespace URI, say) do not stop a document being a valid plist.
            guard !builder.hasFailed, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            var message = error.message.map { String(cString: $0) } ?? "libxml2 error \(error.code)"
            while message.last?.isWhitespace == true { message.removeLast() }
            let position = PlistError.Position.text(line: max(1, Int(error.line)), column: max(1, Int(error.int2)))
            // libxml2's own hard limits (nesting 256, names, CDATA sections) say so by naming the
            // option that would lift them, which a plist reader must never set.
            let code: PlistError.Code = message.containsText("XML_PARSE_HUGE") ? .limitExceeded : .malformed
            builder.fail(PlistError(code, "invalid XML: \(message)", at: position))
        }

        /// Frees the list of values an attribute declaration hands its handler, which is the handler's to free.
        func freeEnumeration(_ values: xmlEnumerationPtr) {
            library.freeEnumeration(values)
        }

        // MARK: Names

        private static func qualifiedName(
            _ localName: UnsafePointer<xmlChar>, _ prefix: UnsafePointer<xmlChar>?
        )
            -> String
        {
            guard let prefix else { return text(of: localName) }
            return text(of: prefix) + ":" + text(of: localName)
        }

        /// Names are interned in the parser's dictionary; this compares the text should one ever not be.
        @inline(never)
        private static func uninternedTag(named name: UnsafePointer<xmlChar>) -> Tag? {
            let text = text(of: name)
            return Tag.allCases.first { $0.name == text }
        }

        private static func text(of name: UnsafePointer<xmlChar>?) -> String {
            guard let name else { return "" }
            var count = 0
            while name[count] != 0 { count += 1 }
            return String(decoding: UnsafeBufferPointer(start: name, count: count), as: UTF8.self)
        }
    }
}
