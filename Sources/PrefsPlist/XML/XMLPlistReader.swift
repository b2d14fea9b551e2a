// SPDX-License-Identifier: Apache-2.0
internal import CPrefsXML2

/// Reads XML property lists, following CoreFoundation's rules.
///
/// Two readers produce the same events (start tags, end tags, runs of text) for one ``ValueBuilder``, which
/// keeps the open containers on an explicit stack (so nesting never recurses) and turns the plist elements into
/// a ``PlistValue``:
///
/// - ``FastReader``, a tokenizer in Swift for the documents real writers produce (UTF-8, the usual declaration
///   and DOCTYPE, comments, CDATA, references). It gives up on anything it does not handle exactly as libxml2
///   would, and on any error, and the document is read again by libxml2.
/// - libxml2's SAX2 parser, loaded on first use (``LibXML2``), for everything else: other encodings, internal
///   subsets, every error with its line and column. It builds no tree: its default SAX2 handlers, which would,
///   are replaced. Security: no entity substitution, no DTD loading, no network; a DOCTYPE with an internal
///   subset (where entities would be declared) is refused, as CoreFoundation refuses inline DTDs.
package enum XMLPlistReader {
    /// Decodes an XML property list.
    /// - Parameters:
    ///   - bytes: The document, in UTF-8 (or an 8-bit encoding it declares), UTF-16 or UTF-32.
    ///   - limits: The input size, nesting depth and object count to enforce.
    /// - Returns: The root value.
    /// - Throws: ``PlistError`` naming the problem and its line and column.
    static func read(_ bytes: UnsafeRawBufferPointer, limits: PlistLimits) throws -> PlistValue {
        try read(bytes, limits: limits, usingFastPath: true)
    }

    /// Decodes an XML property list; without the fast path, libxml2 reads every document (the tests and the fuzz
    /// harness compare the two).
    package static func read(
        _ bytes: UnsafeRawBufferPointer, limits: PlistLimits, usingFastPath: Bool
    ) throws -> PlistValue {
        guard bytes.count <= limits.maxInputBytes else {
            throw PlistError(
                .limitExceeded,
                "the document is \(bytes.count) bytes, more than the input size limit of \(limits.maxInputBytes) bytes",
                at: .byteOffset(limits.maxInputBytes))
        }
        let (encoding, bomLength) = TextEncodingSniffer.detect(bytes)
        if encoding == .utf8 {
            let body = UnsafeRawBufferPointer(rebasing: bytes[bomLength...])
            if usingFastPath, let value = FastReader.read(body, limits: limits) { return value }
            // Without a byte-order mark libxml2 honours the XML declaration (`ISO-8859-1`, …) as
            // CoreFoundation does; with one, the mark decides.
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

    /// The value the fast path reads from the document, or `nil` when it leaves the document to libxml2.
    package static func readWithFastPath(_ bytes: UnsafeRawBufferPointer, limits: PlistLimits) -> PlistValue? {
        guard bytes.count <= limits.maxInputBytes else { return nil }
        let (encoding, bomLength) = TextEncodingSniffer.detect(bytes)
        guard encoding == .utf8 else { return nil }
        return FastReader.read(UnsafeRawBufferPointer(rebasing: bytes[bomLength...]), limits: limits)
    }

    private static func parse(
        _ text: UnsafeRawBufferPointer, forceUTF8: Bool, limits: PlistLimits
    ) throws(PlistError) -> PlistValue {
        guard text.baseAddress != nil, !text.isEmpty else {
            throw PlistError(.malformed, "the document is empty", at: .text(line: 1, column: 1))
        }
        guard text.count <= Int(Int32.max) else {
            throw PlistError(
                .limitExceeded, "the document is larger than libxml2 can read (2 GiB)", at: .byteOffset(Int(Int32.max)))
        }
        let library = try LibXML2.shared()
        guard let context = library.createMemoryParser(text) else {
            throw PlistError(.malformed, "libxml2 could not create a parser for the document", at: .byteOffset(0))
        }
        defer { library.free(context) }
        // Never XML_PARSE_NOENT, XML_PARSE_DTDLOAD, XML_PARSE_DTDATTR, XML_PARSE_DTDVALID or
        // XML_PARSE_HUGE: with NOENT libxml2 reads external entities (file:// included, whatever NONET
        // says); without HUGE it keeps its limits (elements nested 256 deep, names, CDATA sections).
        // NOBLANKS would make libxml2 judge blank text with a tree it does not build here; every run
        // of text reaches the builder, which judges it.
        var options = XML_PARSE_NONET.rawValue
        // With a byte-order mark, or once transcoded, the text is UTF-8 whatever its declaration says.
        if forceUTF8 { options |= XML_PARSE_IGNORE_ENC.rawValue }
        library.useOptions(options, in: context)
        // The handler table is copied over the default SAX2 one (which builds a tree), after the
        // options, which edit the table for some options this reader never sets.
        context.pointee.sax.pointee = makeSAXHandler()
        let receiver = SAXReceiver(context: context, library: library, source: text, limits: limits)
        return try withExtendedLifetime(receiver) { () throws(PlistError) -> PlistValue in
            context.pointee.userData = Unmanaged.passUnretained(receiver).toOpaque()
            let status = library.parse(context)
            return try receiver.finish(parserStatus: status)
        }
    }
}

extension XMLPlistReader {
    /// The plist elements.
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

    /// The element names as pointers into one parser's name dictionary, compared by identity.
    ///
    /// libxml2 hands every element name to the SAX handler as the dictionary's own copy, so a name is
    /// found with one table load and one comparison, no branch on which name it is: the tags of a real
    /// document come in no predictable order, and chains of comparisons mispredicted on most elements.
    struct InternedNames {
        private static let slotCount = 64
        /// The interned name in each slot, as an address (0 for none), and the tag it names.
        private let slotNames: [UInt]
        private let slotTags: [Tag]
        /// A name's slot is its address shifted right by this much, modulo ``slotCount``.
        private let shift: Int

        init(dictionary: xmlDictPtr?, library: LibXML2) {
            // Each tag's interned name as an address, 0 when the dictionary has none. (Two parallel arrays, not an
            // array of pairs: the pair's array type would have its metadata made at run time, in every process.)
            let allTags = Tag.allCases
            var addresses = [UInt](repeating: 0, count: allTags.count)
            var internedCount = 0
            for (index, tag) in allTags.enumerated() {
                if let pointer = library.intern(tag.name, in: dictionary) {
                    addresses[index] = UInt(bitPattern: pointer)
                    internedCount += 1
                }
            }
            // The names sit a few bytes apart in the dictionary's pool; some shift spreads them over
            // distinct slots. Should none, every name is looked up by its text instead.
            var names = [UInt](repeating: 0, count: Self.slotCount)
            var tags = [Tag](repeating: .plist, count: Self.slotCount)
            var chosenShift = 0
            for shift in 0..<24 {
                var occupied: UInt64 = 0
                for address in addresses where address != 0 {
                    occupied |= 1 << UInt64(Self.slot(of: address, shift: shift))
                }
                guard occupied.nonzeroBitCount == internedCount else { continue }
                for (index, address) in addresses.enumerated() where address != 0 {
                    names[Self.slot(of: address, shift: shift)] = address
                    tags[Self.slot(of: address, shift: shift)] = allTags[index]
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
