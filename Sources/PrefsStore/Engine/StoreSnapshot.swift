// SPDX-License-Identifier: Apache-2.0
import PrefsDomain
public import PrefsPlist

/// A domain's (or view's) values with the sequence number of the last change they include.
public struct StoreSnapshot: Sendable, Hashable {
    /// The values.
    public var values: PlistDictionary
    /// The sequence number of the last change included; events with higher numbers come after.
    public var sequence: UInt64
    /// For an effective subscription: the sequence number of each persistent domain of the search list, taken with
    /// the values (compare with ``/PrefsDomain/ChangeEvent/layer``); empty otherwise.
    public var layerSequences: [DomainID: UInt64] = [:]
}
