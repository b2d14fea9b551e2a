// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// The fuzz target of the XML reader: its fast path against libxml2, and what every reader harness checks.
///
/// The input is an XML document. Besides "no crash", it checks that:
/// - when the fast path (the Swift tokenizer) reads the document, libxml2 reads it too, to an equal value: the fast
///   path never accepts a document libxml2 refuses, nor reads another value from one both accept;
/// - whatever the reader decodes is written back in every format, and the binary and XML output reads back (the
///   binary one to the same value), as the other reader harnesses check.
public enum XMLReaderFuzzTarget {
    /// Runs the checks on one input.
    /// - Parameter input: An XML document.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let limits = FuzzInput.plistLimits
        let libxml2: PlistValue?
        do {
            libxml2 = try XMLPlistReader.read(input, limits: limits, usingFastPath: false)
        } catch let error as PlistError {
            FuzzInvariant.require(!error.message.isEmpty, "libxml2's path threw an error without a message")
            libxml2 = nil
        } catch {
            FuzzInvariant.fail("the XML reader threw \(type(of: error)), not PlistError")
        }
        if let fast = XMLPlistReader.readWithFastPath(input, limits: limits) {
            guard let libxml2 else { FuzzInvariant.fail("the fast path read \(fast) from a document libxml2 refuses") }
            FuzzInvariant.require(fast == libxml2, "the fast path read \(fast), libxml2 \(libxml2)")
        }
        if let value = libxml2 { checkWrittenBack(value) }
    }

    /// The reader harnesses' check: a decoded value survives the lossless formats, and writes in the others or
    /// fails cleanly.
    static func checkWrittenBack(_ value: PlistValue) {
        for format in [PlistFormat.binary, .xml] {
            guard let encoded = try? PlistSerialization.encode(value, format: format) else { continue }
            guard let again = try? PlistSerialization.decode(encoded, format: format).value else {
                FuzzInvariant.fail("\(format) output of a decoded value does not read back")
            }
            // XML keeps whole seconds for dates and cannot hold every value; binary holds everything.
            if format == .binary { FuzzInvariant.require(again == value, "binary round trip changed the value") }
        }
        _ = try? PlistSerialization.encode(value, format: .openStep)
        _ = try? PlistSerialization.encode(value, format: .json)
        _ = value.defaultsDescription
    }
}
