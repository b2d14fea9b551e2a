// SPDX-License-Identifier: Apache-2.0
/// A property-list dictionary: string keys compared byte for byte, each with a value.
///
/// It reads like `PlistDictionary` (subscripts, `keys`, `values`, literals, iteration over
/// `(key, value)` pairs), but two keys that differ only in Unicode normalization, such as "é" (U+00E9) and
/// "e" + U+0301, are two entries, as they are for CoreFoundation, CPython and GNUstep. A Swift
/// `Dictionary` keyed by `String` would keep one of them and lose the other's value.
///
/// Iteration order is unspecified, as for `Dictionary`; the writers order keys by their bytes.
public struct PlistDictionary: Sendable {
    /// The entries, keyed byte for byte.
    public var storage: [PlistKey: PlistValue]

    /// Creates an empty dictionary.
    @inlinable
    public init() { storage = [:] }

    /// Creates an empty dictionary with room for `minimumCapacity` entries.
    /// - Parameter minimumCapacity: The number of entries to reserve room for.
    @inlinable
    public init(minimumCapacity: Int) { storage = Dictionary(minimumCapacity: minimumCapacity) }

    /// Creates a dictionary from entries keyed byte for byte.
    /// - Parameter storage: The entries.
    @inlinable
    public init(_ storage: [PlistKey: PlistValue]) { self.storage = storage }

    /// Creates a dictionary from a Swift dictionary (whose keys are already distinct as `String`s).
    /// - Parameter dictionary: The entries.
    public init(_ dictionary: PlistDictionary) {
        storage = Dictionary(minimumCapacity: dictionary.count)
        for (key, value) in dictionary { storage[PlistKey(key)] = value }
    }

    /// Creates a dictionary from pairs whose keys are distinct byte for byte.
    /// - Parameter pairs: The entries; a repeated key is a programming error.
    public init<Pairs: Sequence>(uniqueKeysWithValues pairs: Pairs) where Pairs.Element == (String, PlistValue) {
        storage = Dictionary(uniqueKeysWithValues: pairs.lazy.map { (PlistKey($0.0), $0.1) })
    }

    /// Creates a dictionary from pairs, choosing a value with `combine` when a key repeats.
    /// - Parameters:
    ///   - pairs: The entries.
    ///   - combine: Given the value already there and the new one, returns the value to keep.
    public init<Pairs: Sequence>(
        _ pairs: Pairs, uniquingKeysWith combine: (PlistValue, PlistValue) throws -> PlistValue
    ) rethrows where Pairs.Element == (String, PlistValue) {
        storage = try Dictionary(pairs.lazy.map { (PlistKey($0.0), $0.1) }, uniquingKeysWith: combine)
    }

    /// The value stored under `key`, compared byte for byte; setting `nil` removes the entry.
    @inlinable
    public subscript(key: String) -> PlistValue? {
        get { storage[PlistKey(key)] }
        set { storage[PlistKey(key)] = newValue }
    }

    /// The value stored under `key`; setting `nil` removes the entry.
    @inlinable
    public subscript(key: PlistKey) -> PlistValue? {
        get { storage[key] }
        set { storage[key] = newValue }
    }

    /// The value stored under `key`, or `defaultValue` (which a mutation then stores).
    @inlinable
    public subscript(key: String, default defaultValue: @autoclosure () -> PlistValue) -> PlistValue {
        get { storage[PlistKey(key), default: defaultValue()] }
        set { storage[PlistKey(key)] = newValue }
    }

    /// The keys, in iteration order.
    public var keys: LazyMapCollection<[PlistKey: PlistValue].Keys, String> { storage.keys.lazy.map(\.string) }

    /// The values, in iteration order.
    public var values: [PlistKey: PlistValue].Values { storage.values }

    /// Reserves room for `minimumCapacity` entries.
    @inlinable
    public mutating func reserveCapacity(_ minimumCapacity: Int) { storage.reserveCapacity(minimumCapacity) }

    /// Stores `value` under `key` and returns the value it replaced, if any.
    @discardableResult
    @inlinable
    public mutating func updateValue(_ value: PlistValue, forKey key: String) -> PlistValue? {
        storage.updateValue(value, forKey: PlistKey(key))
    }

    /// Removes the entry under `key` and returns its value, if any.
    @discardableResult
    @inlinable
    public mutating func removeValue(forKey key: String) -> PlistValue? {
        storage.removeValue(forKey: PlistKey(key))
    }

    /// Removes every entry.
    public mutating func removeAll() { storage.removeAll() }

    /// Adds the entries of `other`, choosing a value with `combine` when a key is in both.
    public mutating func merge(
        _ other: PlistDictionary, uniquingKeysWith combine: (PlistValue, PlistValue) throws -> PlistValue
    ) rethrows {
        try storage.merge(other.storage, uniquingKeysWith: combine)
    }

    /// This dictionary with the entries of `other` added, choosing a value with `combine` when a key is in both.
    public func merging(
        _ other: PlistDictionary, uniquingKeysWith combine: (PlistValue, PlistValue) throws -> PlistValue
    ) rethrows -> PlistDictionary {
        PlistDictionary(try storage.merging(other.storage, uniquingKeysWith: combine))
    }

    /// The entries for which `isIncluded` is true.
    public func filter(_ isIncluded: ((key: String, value: PlistValue)) throws -> Bool) rethrows -> PlistDictionary {
        PlistDictionary(try storage.filter { try isIncluded((key: $0.key.string, value: $0.value)) })
    }

    /// The same keys with each value transformed.
    public func mapValues(_ transform: (PlistValue) throws -> PlistValue) rethrows -> PlistDictionary {
        PlistDictionary(try storage.mapValues(transform))
    }

    /// The same keys with each value transformed, without those transformed to `nil`.
    public func compactMapValues(_ transform: (PlistValue) throws -> PlistValue?) rethrows -> PlistDictionary {
        PlistDictionary(try storage.compactMapValues(transform))
    }

    /// The entries as a Swift dictionary; of keys equal as `String`s (canonically equivalent), one survives.
    public var stringKeyed: [String: PlistValue] {
        var result: [String: PlistValue] = Dictionary(minimumCapacity: storage.count)
        for (key, value) in storage { result[key.string] = value }
        return result
    }
}

extension PlistDictionary: Collection {
    /// A position in the dictionary.
    public struct Index: Comparable, Sendable {
        @usableFromInline
        let base: [PlistKey: PlistValue].Index

        @inlinable
        init(_ base: [PlistKey: PlistValue].Index) { self.base = base }

        @inlinable
        public static func < (lhs: Index, rhs: Index) -> Bool { lhs.base < rhs.base }
    }

    @inlinable
    public var startIndex: Index { Index(storage.startIndex) }

    @inlinable
    public var endIndex: Index { Index(storage.endIndex) }

    @inlinable
    public var count: Int { storage.count }

    @inlinable
    public var isEmpty: Bool { storage.isEmpty }

    @inlinable
    public func index(after index: Index) -> Index { Index(storage.index(after: index.base)) }

    @inlinable
    public func formIndex(after index: inout Index) { index = Index(storage.index(after: index.base)) }

    @inlinable
    public subscript(position: Index) -> (key: String, value: PlistValue) {
        let entry = storage[position.base]
        return (entry.key.string, entry.value)
    }

    /// The position of the entry under `key`, if there is one.
    @inlinable
    public func index(forKey key: String) -> Index? { storage.index(forKey: PlistKey(key)).map(Index.init) }
}

extension PlistDictionary: Hashable {}

extension PlistDictionary: ExpressibleByDictionaryLiteral {
    /// Creates a dictionary; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        storage = Dictionary(minimumCapacity: elements.count)
        for (key, value) in elements { storage[PlistKey(key)] = value }
    }
}

extension PlistDictionary: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { storage.description }
    public var debugDescription: String { storage.debugDescription }
}
