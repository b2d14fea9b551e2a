// SPDX-License-Identifier: Apache-2.0
internal import CPrefsXML2
import Glibc

/// libxml2, loaded with `dlopen` the first time a document needs it, and the only place this module calls it.
///
/// Linking libxml2 made every process load it, and ICU, zlib and liblzma with it, at start-up (0.6 M
/// instructions and 69 page faults, about as much as a whole `defaults read`), although most documents are read
/// by the Swift tokenizer (``XMLPlistReader/FastReader``) and never reach it. So nothing refers to a libxml2
/// symbol: the functions are looked up once, on first use, and called through typed C function pointers. The
/// headers still give the types (the parser context, the SAX handler table, errors), which are Debian's
/// libxml2 2.9 ABI, as the soname says.
struct LibXML2: @unchecked Sendable {  // Function pointers into a library that is never unloaded.
    /// The library's soname: the ABI the headers describe.
    static let soname = "libxml2.so.2"

    private let initParser: @convention(c) () -> Void
    private let createMemoryParserContext: @convention(c) (UnsafePointer<CChar>?, Int32) -> xmlParserCtxtPtr?
    private let useOptionsFunction: @convention(c) (xmlParserCtxtPtr?, Int32) -> Int32
    private let parseDocument: @convention(c) (xmlParserCtxtPtr?) -> Int32
    private let stopParserFunction: @convention(c) (xmlParserCtxtPtr?) -> Void
    private let freeDocument: @convention(c) (xmlDocPtr?) -> Void
    private let freeParserContext: @convention(c) (xmlParserCtxtPtr?) -> Void
    private let dictionaryLookup:
        @convention(c) (xmlDictPtr?, UnsafePointer<xmlChar>?, Int32) -> UnsafePointer<xmlChar>?
    private let freeEnumerationFunction: @convention(c) (xmlEnumerationPtr?) -> Void

    /// The library, loaded and initialised on the first call (once per process, safely from any thread).
    /// - Throws: ``PlistError`` naming libxml2.so.2 and the dynamic loader's reason when it cannot be loaded.
    static func shared() throws(PlistError) -> LibXML2 {
        try loadedLibXML2.get()
    }

    /// Loads the library named `soname` (the tests name one that is not there).
    static func load(_ soname: String) -> Result<LibXML2, PlistError> {
        // RTLD_LOCAL: its symbols (and ICU's) stay out of the global namespace, where nothing else wants them.
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(loadError("cannot load \(soname)"))
        }
        func symbol<Function>(_ name: String, as _: Function.Type) throws(PlistError) -> Function {
            guard let address = dlsym(handle, name) else { throw loadError("\(soname) has no function \(name)") }
            return unsafeBitCast(address, to: Function.self)
        }
        do throws(PlistError) {
            let library = LibXML2(
                initParser: try symbol("xmlInitParser", as: (@convention(c) () -> Void).self),
                createMemoryParserContext: try symbol(
                    "xmlCreateMemoryParserCtxt",
                    as: (@convention(c) (UnsafePointer<CChar>?, Int32) -> xmlParserCtxtPtr?).self),
                useOptionsFunction: try symbol(
                    "xmlCtxtUseOptions", as: (@convention(c) (xmlParserCtxtPtr?, Int32) -> Int32).self),
                parseDocument: try symbol("xmlParseDocument", as: (@convention(c) (xmlParserCtxtPtr?) -> Int32).self),
                stopParserFunction: try symbol("xmlStopParser", as: (@convention(c) (xmlParserCtxtPtr?) -> Void).self),
                freeDocument: try symbol("xmlFreeDoc", as: (@convention(c) (xmlDocPtr?) -> Void).self),
                freeParserContext: try symbol(
                    "xmlFreeParserCtxt", as: (@convention(c) (xmlParserCtxtPtr?) -> Void).self),
                dictionaryLookup: try symbol(
                    "xmlDictLookup",
                    as: (@convention(c) (xmlDictPtr?, UnsafePointer<xmlChar>?, Int32) -> UnsafePointer<xmlChar>?).self),
                freeEnumerationFunction: try symbol(
                    "xmlFreeEnumeration", as: (@convention(c) (xmlEnumerationPtr?) -> Void).self))
            // libxml2 sets up its global state (the default SAX handlers, the dictionary's mutex) here; it must
            // run once before parsers are made on several threads.
            library.initParser()
            return .success(library)
        } catch {
            return .failure(error)
        }
    }

    private static func loadError(_ problem: String) -> PlistError {
        let reason = dlerror().map { String(cString: $0) } ?? "no reason given"
        // Not `malformed`: the document may be fine, this process cannot read it.
        return PlistError(
            .unknownFormat, "\(problem), which reads the XML documents the built-in reader leaves to it: \(reason)")
    }

    // MARK: The calls

    func createMemoryParser(_ text: UnsafeRawBufferPointer) -> xmlParserCtxtPtr? {
        guard let base = text.baseAddress, let count = Int32(exactly: text.count) else { return nil }
        return createMemoryParserContext(base.assumingMemoryBound(to: CChar.self), count)
    }

    func useOptions(_ options: UInt32, in context: xmlParserCtxtPtr) {
        _ = useOptionsFunction(context, Int32(bitPattern: options))
    }

    func parse(_ context: xmlParserCtxtPtr) -> Int32 {
        parseDocument(context)
    }

    func stopParser(_ context: xmlParserCtxtPtr) {
        stopParserFunction(context)
    }

    /// Frees the parser, and the document libxml2 makes of its own to hold an entity an internal subset declares
    /// (even with SAX handlers that build none, "expat compatibility").
    func free(_ context: xmlParserCtxtPtr) {
        if let document = context.pointee.myDoc {
            freeDocument(document)
            context.pointee.myDoc = nil
        }
        freeParserContext(context)
    }

    /// The dictionary's own copy of `name`, as element names are handed to the SAX handler.
    func intern(_ name: String, in dictionary: xmlDictPtr?) -> UnsafePointer<xmlChar>? {
        name.withCString { text in
            text.withMemoryRebound(to: xmlChar.self, capacity: name.utf8.count + 1) {
                dictionaryLookup(dictionary, $0, -1)
            }
        }
    }

    /// Frees the list of values an attribute declaration hands its SAX handler.
    func freeEnumeration(_ values: xmlEnumerationPtr) {
        freeEnumerationFunction(values)
    }
}

/// Loaded on first use: Swift runs a global's initializer once, safely from any thread.
private let loadedLibXML2 = LibXML2.load(LibXML2.soname)
