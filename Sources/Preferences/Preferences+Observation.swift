// SPDX-License-Identifier: Apache-2.0
import PrefsStore

// Observation of effective values: what a read of the key would return changes, whichever layer and whichever
// process changed it. A change shadowed by a higher layer (a forced value, say) is not one.

extension Preferences {
    /// The effective values of a typed key as they change, as an `AsyncSequence`.
    ///
    /// ```swift
    /// for await size in prefs.changes(for: .fontSize) { relayout(size) }
    /// ```
    ///
    /// Elements come for changes made through any instance in this process, by other processes (through the file
    /// watcher, or the daemon) and by hand edits of the files. The search list is the instance's at the time of
    /// the call.
    /// - Parameters:
    ///   - key: The key.
    ///   - bufferLimit: How many changes may queue before queued changes of the key are merged.
    /// - Returns: The sequence; ``PreferenceChanges/initialValue`` is the value it starts from.
    public func changes<Value>(for key: Key<Value>, bufferLimit: Int = 1024) -> PreferenceChanges<Value> {
        let stream = engine.changes(.effectiveKey(key.name, in: searchList), bufferLimit: bufferLimit)
        return PreferenceChanges(stream: stream, key: key.name, transform: Self.reader(for: key))
    }

    /// The effective values of a key as they change (`nil` when it is removed from every layer), as an
    /// `AsyncSequence`; see ``changes(for:bufferLimit:)``.
    /// - Parameters:
    ///   - key: The key.
    ///   - bufferLimit: How many changes may queue before queued changes of the key are merged.
    /// - Returns: The sequence.
    public func changes(forKey key: String, bufferLimit: Int = 1024) -> PreferenceChanges<PlistValue?> {
        let stream = engine.changes(.effectiveKey(key, in: searchList), bufferLimit: bufferLimit)
        return PreferenceChanges(stream: stream, key: key, transform: { $0 })
    }

    /// Calls `handler` with the new effective value of a typed key after each change, until the returned
    /// observation is cancelled or released.
    ///
    /// Changes made in this process are delivered on the thread that made them, after the write; changes from other
    /// processes on the store's background thread. Deliveries do not overlap and come in order.
    /// - Parameters:
    ///   - key: The key.
    ///   - handler: Receives each new value.
    /// - Returns: The observation; keep it as long as the handler should be called.
    public func observe<Value>(
        _ key: Key<Value>, handler: @escaping @Sendable (Value) -> Void
    ) -> PreferencesObservation {
        let read = Self.reader(for: key)
        let token = engine.observe(.effectiveKey(key.name, in: searchList)) { events in
            for event in events { handler(read(event.newValue)) }
        }
        return PreferencesObservation(token: token)
    }

    /// Calls `handler` with the new effective value of a key (`nil` when removed from every layer) after each
    /// change; see ``observe(_:handler:)``.
    /// - Parameters:
    ///   - key: The key.
    ///   - handler: Receives each new value.
    /// - Returns: The observation; keep it as long as the handler should be called.
    public func observe(
        forKey key: String, handler: @escaping @Sendable (PlistValue?) -> Void
    ) -> PreferencesObservation {
        let token = engine.observe(.effectiveKey(key, in: searchList)) { events in
            for event in events { handler(event.newValue) }
        }
        return PreferencesObservation(token: token)
    }

    /// Reads a key's effective value as the subscript does: the default when absent or unreadable.
    static func reader<Value>(for key: Key<Value>) -> @Sendable (PlistValue?) -> Value {
        { stored in
            guard let stored else { return key.defaultValue }
            do throws(PreferencesError) {
                return try key.read(stored)
            } catch {
                return key.defaultValue
            }
        }
    }
}
