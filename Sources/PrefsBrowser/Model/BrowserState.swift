// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsStore

/// Everything the browser shows, and where the user is in it.
struct BrowserState: Sendable {
    /// The pane that arrows move in.
    enum Focus: Sendable {
        case domains, keys, detail
    }

    /// What a value typed in the editor becomes.
    enum EditTarget: Sendable {
        /// The key's value, or the element at `path` inside it, as `row` showed it when the edit began.
        case element(row: KeyRow, path: [ValueOutline.Step], kind: ValueKind)
        /// A new key.
        case newKey(String, kind: ValueKind)
        /// A new element of the container at `path` of the key `row` showed (under `itemKey` in a dictionary).
        case newItem(row: KeyRow, path: [ValueOutline.Step], itemKey: String?, kind: ValueKind)
    }

    /// What is being added, before its type (and name) are chosen.
    enum Addition: Sendable {
        case key
        case item(row: KeyRow, path: [ValueOutline.Step], inDictionary: Bool)
    }

    /// What the keyboard does now.
    enum Mode: Sendable {
        case browsing
        /// Typing the domain filter.
        case filtering
        /// Typing what to search for in every domain.
        case searching(LineEditor)
        /// The search's hits.
        case results(query: String, hits: [SearchHit], selected: Int)
        /// Typing a value.
        case editing(EditTarget, LineEditor)
        /// Choosing the type of what is added.
        case choosingKind(Addition)
        /// Typing the name of a new key or dictionary element.
        case naming(Addition, kind: ValueKind, LineEditor)
        /// Asked whether to delete a key.
        case confirmingDelete(key: String)
        case help
    }

    /// One key of one domain that matched a search.
    struct SearchHit: Sendable {
        let domain: DomainName
        let key: String
        let value: PlistValue
    }

    /// A line at the bottom: what happened, or what went wrong.
    struct Message: Sendable {
        let text: String
        let isError: Bool
    }

    var domains: [DomainEntry] = []
    var filter = LineEditor()
    var domainIndex = 0
    var domainScroll = 0
    /// The domain whose keys are shown.
    var shownDomain: DomainName?
    var rows: [KeyRow] = []
    /// What the shown domain's schema says of its keys, when it has one.
    var schema: DomainSchema?
    var keyIndex = 0
    var keyScroll = 0
    /// Where the selected key's value comes from.
    var explanation: Resolution?
    var detailIndex = 0
    var detailScroll = 0
    /// Containers unfolded or folded by the user, by path.
    var toggled: Set<[ValueOutline.Step]> = []
    var focus = Focus.domains
    var mode = Mode.browsing
    var message: Message?
    /// Keys another process changed lately, highlighted until then.
    var highlighted: [String: ContinuousClock.Instant] = [:]

    /// The domains the filter lets through (any part of the name, any case).
    var visibleDomains: [DomainEntry] {
        let needle = filter.text.lowercased()
        guard !needle.isEmpty else { return domains }
        return domains.filter { $0.name.rawValue.lowercased().containsText(needle) }
    }

    /// The selected key's row.
    var selectedRow: KeyRow? {
        rows.indices.contains(keyIndex) ? rows[keyIndex] : nil
    }

    /// The outline of the selected key's value.
    var outline: [ValueOutline.Line] {
        guard let row = selectedRow else { return [] }
        return ValueOutline.lines(of: row.value, toggled: toggled)
    }
}
