// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsStore

/// Key paths as `defaults` takes them, with `-keypath`: `Window.Frame.0`.
///
/// A plain key (without `-keypath`) is ``PlistKeyPath/init(key:)``, never split, so keys that contain dots keep
/// working unchanged.
extension PlistKeyPath {
    /// The option that introduces a key path where a key goes.
    static let optionName = "-keypath"
    /// The most components a key path may have: one per level the store accepts, plus the top-level key.
    static let maxComponents = StoreLimits.default.maxDepth + 1

    /// Sets the value at this path, creating missing dictionaries on the way (see ``PlistKeyPath/set(_:in:)``).
    /// - Parameters:
    ///   - value: The new value.
    ///   - domain: The domain's values, changed in place.
    ///   - domainName: The domain, for messages.
    /// - Throws: ``DefaultsError`` with code `.invalidValue` when a component goes through a value that is not a
    ///   container, or names an array element that does not exist (or the path is deeper than any value may be,
    ///   which ``ArgumentReader/key(required:)`` already refuses).
    func set(_ value: PlistValue, in domain: inout PlistDictionary, domainName: String) throws(DefaultsError) {
        do throws(SetFailure) {
            try set(value, in: &domain)
        } catch {
            let start = "defaults: cannot write key path \(text) in domain \(domainName): "
            switch error {
            case .notAnIndex(let depth, let count):
                throw DefaultsError(
                    .invalidValue,
                    start + "\(prefix(depth)) is an array of \(count) elements, and \(components[depth]) is not an "
                        + "index from 0 to \(count)")
            case .notAContainer(let depth, let typeName):
                throw DefaultsError(
                    .invalidValue, start + "\(prefix(depth)) is a \(typeName), not a dictionary or an array")
            case .tooDeep(let count, let limit):
                throw DefaultsError(.invalidValue, start + "it has \(count) components, more than \(limit)")
            }
        }
    }
}
