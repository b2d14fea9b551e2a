// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// The fuzz target of ``PlistKeyPath``: parsing, and reading, setting and removing through a value.
///
/// The input is the key path's text (UTF-8), then a NUL byte, then a property list in any format. A dictionary is
/// the top-level dictionary the path starts at; any other value is put under the path's first key; without a NUL,
/// or when the rest does not decode, the dictionary is empty. Besides "no crash", it checks that:
/// - the text is kept; the path printed back with ``PlistKeyPath/prefix(_:)`` parses to the same components, and
///   so does every shorter prefix; a plain key (``PlistKeyPath/init(key:)``) is one component, printed back the
///   same way;
/// - reading from the dictionary and from the dictionary as a value agree;
/// - a set puts the value where a read finds it and leaves the other top-level keys alone; a failed set leaves the
///   dictionary unchanged and names a blocking value that is really there (a scalar of that type, or an array of
///   that many elements); setting the value a path already has changes nothing;
/// - a remove succeeds exactly when a read finds a value, removes it (a dictionary's key is gone, an array is one
///   element shorter), and a failed remove changes nothing.
public enum KeyPathFuzzTarget {
    /// The value the checks set: no reader makes it from text that is not there, so it is easy to tell apart.
    static let marker = PlistValue.data([0xF0, 0x0D, 0xFA, 0xCE])

    /// Above this many components, only the whole path is printed back (every prefix would take quadratic time).
    static let prefixCheckLimit = 64

    /// Runs the checks on one input.
    /// - Parameter input: The key path's text, a NUL byte, and a property list.
    public static func run(_ input: UnsafeRawBufferPointer) {
        let (head, tail) = FuzzInput.splitAtFirstNUL(input)
        let text = String(decoding: head, as: UTF8.self)
        let path = PlistKeyPath(text)
        checkParsing(path, text: text)

        var domain: PlistDictionary = [:]
        switch FuzzInput.plist(tail) {
        case .dictionary(let entries)?: domain = entries
        case let value?: domain = [path.topLevelKey: value]
        case nil: break
        }
        checkRead(path, in: domain)
        checkSet(path, in: domain)
        checkRemove(path, from: domain)
    }

    static func checkParsing(_ path: PlistKeyPath, text: String) {
        let components = path.components
        FuzzInvariant.require(!components.isEmpty, "the key path \(text.debugDescription) has no components")
        FuzzInvariant.require(path.text == text, "the key path \(text.debugDescription) does not keep its text")
        let counts = components.count <= prefixCheckLimit ? Array(1...components.count) : [1, components.count]
        for count in counts {
            let prefix = path.prefix(count)
            FuzzInvariant.require(
                prefix.components == Array(components.prefix(count)),
                "prefix(\(count)) of \(text.debugDescription) has other components")
            let reparsed = PlistKeyPath(prefix.text)
            FuzzInvariant.require(
                reparsed.components == prefix.components,
                "prefix(\(count)) of \(text.debugDescription) prints as \(prefix.text.debugDescription), which parses "
                    + "to \(reparsed.components), not \(prefix.components)")
        }
        let key = PlistKeyPath(key: text)
        FuzzInvariant.require(key.components == [text], "the plain key \(text.debugDescription) was split")
        let printed = key.prefix(1).text
        FuzzInvariant.require(
            PlistKeyPath(printed).components == [text],
            "the plain key \(text.debugDescription) prints as \(printed.debugDescription), which parses to "
                + "\(PlistKeyPath(printed).components)")
    }

    static func checkRead(_ path: PlistKeyPath, in domain: PlistDictionary) {
        FuzzInvariant.require(
            path.value(in: domain) == path.value(in: .dictionary(domain)),
            "reading \(path) from a dictionary and from the same dictionary as a value disagree")
    }

    static func checkSet(_ path: PlistKeyPath, in domain: PlistDictionary) {
        var updated = domain
        do throws(PlistKeyPath.SetFailure) {
            try path.set(marker, in: &updated)
        } catch {
            FuzzInvariant.require(updated == domain, "a failed set of \(path) changed the dictionary")
            checkBlocked(path, in: domain, by: error)
            return
        }
        FuzzInvariant.require(
            path.value(in: updated) == marker, "after a set of \(path), a read does not find the value")
        for (key, value) in domain where key != path.topLevelKey {
            FuzzInvariant.require(
                updated[key] == value, "a set of \(path) changed the top-level key \(key.debugDescription)")
        }
        let added = domain[path.topLevelKey] == nil ? 1 : 0
        FuzzInvariant.require(
            updated.count == domain.count + added,
            "a set of \(path) left \(updated.count) top-level keys of \(domain.count)")

        if let existing = path.value(in: domain) {
            var same = domain
            do throws(PlistKeyPath.SetFailure) {
                try path.set(existing, in: &same)
            } catch {
                FuzzInvariant.fail("setting \(path) to the value it has failed: \(error)")
            }
            FuzzInvariant.require(same == domain, "setting \(path) to the value it has changed the dictionary")
        }
    }

    /// A set's failure names the value that blocks the path, and that value is what it says.
    static func checkBlocked(
        _ path: PlistKeyPath, in domain: PlistDictionary, by failure: PlistKeyPath.SetFailure
    ) {
        switch failure {
        case .tooDeep(let count, let limit):
            FuzzInvariant.require(
                count == path.components.count && count > limit,
                "a set of a path of \(path.components.count) components failed as \(count) of at most \(limit)")
        case .notAContainer(let depth, let typeName):
            FuzzInvariant.require(
                depth >= 1 && depth < path.components.count, "a set of \(path) failed at depth \(depth)")
            let blocking = path.prefix(depth).value(in: domain)
            switch blocking {
            case .array?, .dictionary?, nil:
                FuzzInvariant.fail("a set of \(path) blames a \(typeName) at depth \(depth), which is not a scalar")
            case let scalar?:
                FuzzInvariant.require(
                    scalar.typeName == typeName,
                    "a set of \(path) blames a \(typeName) at depth \(depth), which is a \(scalar.typeName)")
            }
        case .notAnIndex(let depth, let count):
            FuzzInvariant.require(
                depth >= 1 && depth < path.components.count, "a set of \(path) failed at depth \(depth)")
            guard case .array(let elements)? = path.prefix(depth).value(in: domain) else {
                FuzzInvariant.fail("a set of \(path) blames an array at depth \(depth), which is not one")
            }
            FuzzInvariant.require(
                elements.count == count,
                "a set of \(path) blames an array of \(count) elements at depth \(depth), which has \(elements.count)")
            if let index = PlistKeyPath.index(path.components[depth]) {
                FuzzInvariant.require(index > count, "a set of \(path) refused index \(index) of \(count) elements")
            }
        }
    }

    static func checkRemove(_ path: PlistKeyPath, from domain: PlistDictionary) {
        var updated = domain
        let removed = path.remove(from: &updated)
        let existing = path.value(in: domain)
        FuzzInvariant.require(
            removed == (existing != nil),
            "remove of \(path) returned \(removed), but a read \(existing == nil ? "finds nothing" : "finds a value")")
        guard removed else {
            FuzzInvariant.require(updated == domain, "a remove of \(path) that found nothing changed the dictionary")
            return
        }
        let count = path.components.count
        guard count > 1 else {
            FuzzInvariant.require(
                updated[path.topLevelKey] == nil && updated.count == domain.count - 1,
                "a remove of the top-level key \(path) did not remove exactly it")
            return
        }
        let parent = path.prefix(count - 1)
        switch (parent.value(in: domain), parent.value(in: updated)) {
        case (.dictionary(let before)?, .dictionary(let after)?):
            FuzzInvariant.require(
                after.count == before.count - 1 && after[path.components[count - 1]] == nil,
                "a remove of \(path) did not remove exactly its key")
        case (.array(let before)?, .array(let after)?):
            FuzzInvariant.require(after.count == before.count - 1, "a remove of \(path) did not remove one element")
        default:
            FuzzInvariant.fail("a remove of \(path) changed the type of the container it removed from")
        }
    }
}
