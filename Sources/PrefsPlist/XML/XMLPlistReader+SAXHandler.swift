// SPDX-License-Identifier: Apache-2.0
internal import CPrefsXML2

extension XMLPlistReader {
    /// The SAX2 callbacks libxml2 calls while it parses, each handing the event to the ``SAXReceiver``
    /// that is the parser's user data.
    ///
    /// Only what a property list needs is set. No tree is built, no entity is looked up (so only the
    /// five predefined ones and character references are ever replaced), no external subset is
    /// loaded. Every declaration an internal DTD subset can hold is refused.
    static func makeSAXHandler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { context, localName, prefix, _, _, _, _, _, _ in
            guard let localName else { return }
            withReceiver(context) { $0.startElement(localName, prefix: prefix) }
        }
        handler.endElementNs = { context, _, _, _ in
            withReceiver(context) { $0.endElement() }
        }
        // One function for both, so that libxml2 sees them equal and skips its own blank-text
        // heuristic, which needs a tree.
        let characters: charactersSAXFunc = { context, text, count in
            guard let text, count > 0 else { return }
            withReceiver(context) { $0.characters(UnsafeBufferPointer(start: text, count: Int(count))) }
        }
        handler.characters = characters
        handler.ignorableWhitespace = characters
        handler.cdataBlock = { context, text, count in
            withReceiver(context) { $0.characterData(UnsafeBufferPointer(start: text, count: Int(max(count, 0)))) }
        }
        handler.comment = { context, _ in
            withReceiver(context) { $0.commentOrProcessingInstruction() }
        }
        handler.processingInstruction = { context, _, _ in
            withReceiver(context) { $0.commentOrProcessingInstruction() }
        }
        handler.reference = { context, name in
            withReceiver(context) { $0.entityReference(name) }
        }
        handler.entityDecl = { context, _, _, _, _, _ in
            withReceiver(context) { $0.internalSubsetDeclaration() }
        }
        handler.unparsedEntityDecl = { context, _, _, _, _ in
            withReceiver(context) { $0.internalSubsetDeclaration() }
        }
        handler.notationDecl = { context, _, _, _ in
            withReceiver(context) { $0.internalSubsetDeclaration() }
        }
        handler.elementDecl = { context, _, _, _ in
            withReceiver(context) { $0.internalSubsetDeclaration() }
        }
        handler.attributeDecl = { context, _, _, _, _, _, values in
            withReceiver(context) { receiver in
                if let values { receiver.freeEnumeration(values) }
                receiver.internalSubsetDeclaration()
            }
        }
        handler.serror = { context, error in
            guard let error else { return }
            withReceiver(context) { $0.record(error.pointee) }
        }
        return handler
    }
}

/// Calls `body` with the receiver that is the parser's user data: set before parsing starts, it outlives the parse,
/// so it is lent without the retain and release a strong reference would cost on every callback. A free function,
/// so that the callbacks capture nothing and convert to C function pointers.
@inline(__always)
private func withReceiver(_ context: UnsafeMutableRawPointer?, _ body: (XMLPlistReader.SAXReceiver) -> Void) {
    Unmanaged<XMLPlistReader.SAXReceiver>.fromOpaque(context.unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
}
