// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
public import PrefsPlist
import Synchronization

/// The merged, first-hit-wins values of a search list, kept current as its layers change.
///
/// A read is one lock and one hash lookup: the store updates the merged dictionary when a layer changes, so no
/// read walks the layers. ``version`` grows with every change, for callers that cache derived values.
/// Get a view with ``PreferencesStore/effectiveView(for:)``; views of equal search lists are shared.
public final class EffectiveView: Sendable {
    /// The search list this view merges.
    public let searchList: SearchList
    /// The store the view reads from.
    public let store: PreferencesStore
    /// Where each layer of ``searchList`` lives in the store, in search order.
    let slots: [StoreState.LayerSlot]
    private let merged: Mutex<PlistDictionary>
    private let versionCounter = Atomic<UInt64>(0)

    init(searchList: SearchList, store: PreferencesStore, slots: [StoreState.LayerSlot], merged: PlistDictionary) {
        self.searchList = searchList
        self.store = store
        self.slots = slots
        self.merged = Mutex(merged)
    }

    deinit {
        // No lock here: a view can be released inside the store's lock, by a lookup that held it last.
        store.releasedViews.add(1, ordering: .relaxed)
    }

    /// The effective value of a key, or `nil` when no layer holds it.
    public func value(forKey key: String) -> PlistValue? {
        merged.withLock { $0[key] }
    }

    /// Every effective key and value.
    public var values: PlistDictionary {
        merged.withLock { $0 }
    }

    /// A counter that grows with every change of an effective value.
    public var version: UInt64 {
        versionCounter.load(ordering: .acquiring)
    }

    /// Which layer supplies a key's value, what it shadows, and which layers were skipped.
    public func resolve(_ key: String) -> Resolution {
        store.resolve(key, in: searchList)
    }

    /// The values and version together, consistent with each other.
    func snapshot() -> (values: PlistDictionary, version: UInt64) {
        merged.withLock { ($0, versionCounter.load(ordering: .relaxed)) }
    }

    /// Sets one effective value; returns the old value and the new version, or `nil` when nothing changed.
    func update(key: String, to value: PlistValue?) -> (old: PlistValue?, version: UInt64)? {
        merged.withLock { merged -> (old: PlistValue?, version: UInt64)? in
            let exactKey = PlistKey(key)
            let index = merged.storage.index(forKey: exactKey)
            let old = index.map { merged.storage.values[$0] }
            guard old != value else { return nil }
            switch (index, value) {
            case (let index?, let value?): merged.storage.values[index] = value
            case (let index?, nil): merged.storage.remove(at: index)
            case (nil, let value?): merged.storage[exactKey] = value
            case (nil, nil): break
            }
            let version = versionCounter.add(1, ordering: .releasing).newValue
            return (old, version)
        }
    }
}
