// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsStore

/// The terminal browser's logic: the state, what each key does to it, and the changes others make.
///
/// It draws nothing itself (``BrowserView`` makes the frame) and owns no terminal, so that tests can drive it with
/// keys and read its frames.
final class Browser {
    let catalog: BrowserCatalog
    private(set) var state = BrowserState()
    /// Whether the user asked to quit.
    private(set) var isFinished = false
    private var lastDomainRefresh: ContinuousClock.Instant = .now
    /// How long a key another process changed stays highlighted.
    static let highlightDuration = Duration.milliseconds(1500)

    /// Opens the browser on the catalog's domains, with `domain` selected when given.
    init(catalog: BrowserCatalog, domain: DomainName? = nil) {
        self.catalog = catalog
        state.domains = catalog.domains()
        if let domain {
            if !state.domains.contains(where: { $0.name == domain }) {
                state.domains.append(DomainEntry(name: domain, scopes: []))
                state.domains.sort()
            }
            state.domainIndex = state.visibleDomains.firstIndex { $0.name == domain } ?? 0
            state.focus = .keys
        }
        showSelectedDomain()
    }

    /// The frame for a screen of `size`.
    func frame(size: ScreenSize) -> Frame {
        BrowserView(state: state, route: catalog.routeDescription).frame(size: size)
    }

    // MARK: Changes made elsewhere

    /// Takes in what other processes changed: the shown domain's keys again, with the changed ones highlighted, and
    /// the list of domains once a second. Returns whether anything changed.
    @discardableResult
    func refresh(now: ContinuousClock.Instant = .now) -> Bool {
        var changed = false
        let changes = catalog.takeChanges()
        if let shown = state.shownDomain, let keys = changes[shown], !keys.isEmpty {
            reloadRows()
            for key in keys { state.highlighted[key] = now + Self.highlightDuration }
            changed = true
        }
        let expired = state.highlighted.filter { $0.value <= now }.map(\.key)
        for key in expired { state.highlighted[key] = nil }
        changed = changed || !expired.isEmpty
        if now - lastDomainRefresh >= .seconds(1) || changes.keys.contains(where: { !knows($0) }) {
            lastDomainRefresh = now
            changed = refreshDomains() || changed
        }
        return changed
    }

    private func knows(_ name: DomainName) -> Bool {
        state.domains.contains { $0.name == name }
    }

    /// Lists the domains again, keeping the selection on the same name.
    private func refreshDomains() -> Bool {
        let domains = catalog.domains()
        guard domains != state.domains else { return false }
        let selected =
            state.visibleDomains.indices.contains(state.domainIndex)
            ? state.visibleDomains[state.domainIndex].name : nil
        state.domains = domains
        if let shown = state.shownDomain, !domains.contains(where: { $0.name == shown }) {
            state.domains.append(DomainEntry(name: shown, scopes: []))
            state.domains.sort()
        }
        if let selected { state.domainIndex = state.visibleDomains.firstIndex { $0.name == selected } ?? 0 }
        clampDomainIndex()
        return true
    }

    // MARK: Selection

    /// Shows the keys of the selected domain.
    func showSelectedDomain() {
        let visible = state.visibleDomains
        guard visible.indices.contains(state.domainIndex) else {
            state.shownDomain = nil
            state.rows = []
            state.explanation = nil
            return
        }
        let name = visible[state.domainIndex].name
        guard name != state.shownDomain else { return }
        state.shownDomain = name
        state.schema = catalog.schema(for: name)
        state.keyIndex = 0
        state.keyScroll = 0
        state.highlighted = [:]
        reloadRows()
    }

    /// Reads the shown domain's keys again, keeping the selection on the same key.
    func reloadRows() {
        guard let name = state.shownDomain else { return }
        let selectedKey = state.selectedRow?.key
        state.rows = catalog.rows(for: name)
        if let selectedKey, let index = state.rows.firstIndex(where: { $0.key == selectedKey }) {
            state.keyIndex = index
        }
        state.keyIndex = max(0, min(state.keyIndex, state.rows.count - 1))
        explainSelectedKey()
    }

    /// Explains the selected key, for the detail pane.
    func explainSelectedKey() {
        guard let name = state.shownDomain, let row = state.selectedRow else {
            state.explanation = nil
            return
        }
        if state.explanation?.key != row.key {
            state.toggled = []
            state.detailIndex = 0
            state.detailScroll = 0
        }
        state.explanation = catalog.explanation(of: row.key, in: name)
        state.detailIndex = min(state.detailIndex, max(0, state.outline.count - 1))
    }

    func clampDomainIndex() {
        state.domainIndex = max(0, min(state.domainIndex, state.visibleDomains.count - 1))
    }

    /// Selects a domain and key by name (a search hit).
    func select(domain: DomainName, key: String) {
        state.filter = LineEditor()
        state.domainIndex = state.visibleDomains.firstIndex { $0.name == domain } ?? state.domainIndex
        showSelectedDomain()
        if let index = state.rows.firstIndex(where: { $0.key == key }) { state.keyIndex = index }
        explainSelectedKey()
        state.focus = .keys
    }

    func say(_ text: String, isError: Bool = false) {
        state.message = BrowserState.Message(text: text, isError: isError)
    }

    func finish() {
        isFinished = true
    }

    /// Lets the key handlers change the state.
    func update(_ change: (inout BrowserState) -> Void) {
        change(&state)
    }
}
