// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsStore

extension Browser {
    /// The rows a page key moves.
    static let pageRows = 10

    /// Does what a key does in the current mode.
    func handle(_ key: TerminalKey) {
        if key == .control("c") { return finish() }
        if key != .resize, case .browsing = state.mode { update { $0.message = nil } }
        switch state.mode {
        case .browsing: browse(key)
        case .filtering: filter(key)
        case .searching(var editor):
            switch key {
            case .escape: update { $0.mode = .browsing }
            case .enter: search(editor.text)
            default:
                if editor.apply(key) { update { $0.mode = .searching(editor) } }
            }
        case .results(let query, let hits, let selected): results(key, query: query, hits: hits, selected: selected)
        case .editing(let target, var editor):
            switch key {
            case .escape: update { $0.mode = .browsing }
            case .enter: commit(target, text: editor.text)
            default:
                if editor.apply(key) { update { $0.mode = .editing(target, editor) } }
            }
        case .choosingKind(let addition): chooseKind(key, for: addition)
        case .naming(let addition, let kind, var editor):
            switch key {
            case .escape: update { $0.mode = .browsing }
            case .enter: named(editor.text, addition: addition, kind: kind)
            default:
                if editor.apply(key) { update { $0.mode = .naming(addition, kind: kind, editor) } }
            }
        case .confirmingDelete(let name):
            update { $0.mode = .browsing }
            if key == .character("y") || key == .character("Y") { delete(name) } else { say("nothing was deleted") }
        case .help:
            update { $0.mode = .browsing }
        }
    }

    private func browse(_ key: TerminalKey) {
        switch key {
        case .character("q"): finish()
        case .character("?"): update { $0.mode = .help }
        case .character("/"): update { $0.mode = .searching(LineEditor()) }
        case .character("f"):
            update {
                $0.mode = .filtering
                $0.focus = .domains
            }
        case .tab: cycleFocus(forward: true)
        case .backTab: cycleFocus(forward: false)
        case .left: moveFocus(left: true)
        case .right: moveFocus(left: false)
        case .up, .character("k"): move(by: -1)
        case .down, .character("j"): move(by: 1)
        case .pageUp: move(by: -Self.pageRows)
        case .pageDown: move(by: Self.pageRows)
        case .home, .character("g"): move(by: -Int.max / 2)
        case .end, .character("G"): move(by: Int.max / 2)
        case .enter, .character(" "):
            switch state.focus {
            case .domains: update { $0.focus = .keys }
            case .keys: update { $0.focus = .detail }
            case .detail: toggleFold()
            }
        case .character("e"): beginEdit()
        case .character("n"):
            guard state.shownDomain != nil else { return }
            update { $0.mode = .choosingKind(.key) }
        case .character("a"): beginAddingItem()
        case .character("x"): removeElement()
        case .character("d"):
            guard let row = state.selectedRow, state.focus != .domains else { return }
            guard !row.isForced else { return refuseForced(row) }
            update { $0.mode = .confirmingDelete(key: row.key) }
        case .character("r"): reset()
        default: break
        }
    }

    private func filter(_ key: TerminalKey) {
        var editor = state.filter
        switch key {
        case .enter, .down, .tab:
            update { $0.mode = .browsing }
            return
        case .escape:
            editor = LineEditor()
            update { $0.mode = .browsing }
        default:
            guard editor.apply(key) else { return }
        }
        update {
            $0.filter = editor
            $0.domainIndex = 0
            $0.domainScroll = 0
        }
        showSelectedDomain()
    }

    private func results(
        _ key: TerminalKey, query: String, hits: [BrowserState.SearchHit], selected: Int
    ) {
        var index = selected
        switch key {
        case .escape, .character("q"):
            update { $0.mode = .browsing }
            return
        case .up, .character("k"): index -= 1
        case .down, .character("j"): index += 1
        case .pageUp: index -= Self.pageRows
        case .pageDown: index += Self.pageRows
        case .enter:
            guard hits.indices.contains(selected) else { return }
            update { $0.mode = .browsing }
            select(domain: hits[selected].domain, key: hits[selected].key)
            return
        default: return
        }
        index = max(0, min(index, hits.count - 1))
        update { $0.mode = .results(query: query, hits: hits, selected: index) }
    }

    /// Searches every domain's keys and values (any case), as `defaults find` does.
    private func search(_ query: String) {
        guard !query.isEmpty else { return update { $0.mode = .browsing } }
        let needle = query.lowercased()
        var hits: [BrowserState.SearchHit] = []
        for entry in state.domains {
            for row in catalog.rows(for: entry.name)
            where row.key.lowercased().containsText(needle)
                || ValueText.short(row.value).lowercased().containsText(needle)
            {
                hits.append(BrowserState.SearchHit(domain: entry.name, key: row.key, value: row.value))
            }
        }
        update { $0.mode = .results(query: query, hits: hits, selected: 0) }
        if hits.isEmpty { say("nothing matches \(query)") }
    }

    private func cycleFocus(forward: Bool) {
        let order: [BrowserState.Focus] = [.domains, .keys, .detail]
        let index = order.firstIndex(of: state.focus) ?? 0
        update { $0.focus = order[(index + (forward ? 1 : 2)) % 3] }
    }

    private func moveFocus(left: Bool) {
        switch (state.focus, left) {
        case (.keys, true): update { $0.focus = .domains }
        case (.detail, true): update { $0.focus = .keys }
        case (.domains, false): update { $0.focus = .keys }
        case (.keys, false): update { $0.focus = .detail }
        default: break
        }
    }

    private func move(by delta: Int) {
        switch state.focus {
        case .domains:
            let count = state.visibleDomains.count
            update { $0.domainIndex = max(0, min(count - 1, $0.domainIndex.addingReportingOverflow(delta).0)) }
            showSelectedDomain()
        case .keys:
            let count = state.rows.count
            update { $0.keyIndex = max(0, min(count - 1, $0.keyIndex.addingReportingOverflow(delta).0)) }
            explainSelectedKey()
        case .detail:
            let count = state.outline.count
            update { $0.detailIndex = max(0, min(count - 1, $0.detailIndex.addingReportingOverflow(delta).0)) }
        }
    }

    private func toggleFold() {
        let outline = state.outline
        guard outline.indices.contains(state.detailIndex), outline[state.detailIndex].isContainer,
            !outline[state.detailIndex].path.isEmpty
        else { return }
        let path = outline[state.detailIndex].path
        update { state in
            if state.toggled.remove(path) == nil { state.toggled.insert(path) }
        }
    }

    private func chooseKind(_ key: TerminalKey, for addition: BrowserState.Addition) {
        guard case .character(let letter) = key, let kind = ValueKind.allCases.first(where: { $0.letter == letter })
        else {
            update { $0.mode = .browsing }
            return say("nothing was added")
        }
        switch addition {
        case .key, .item(_, _, inDictionary: true):
            update { $0.mode = .naming(addition, kind: kind, LineEditor()) }
        case .item(let row, let path, inDictionary: false):
            beginValue(.newItem(row: row, path: path, itemKey: nil, kind: kind))
        }
    }

    private func named(_ name: String, addition: BrowserState.Addition, kind: ValueKind) {
        guard !name.isEmpty else {
            update { $0.mode = .browsing }
            return say("nothing was added: a name is needed", isError: true)
        }
        switch addition {
        case .key:
            if state.rows.contains(where: { $0.key == name }) {
                update { $0.mode = .browsing }
                return say("key \(name) exists already; e edits it", isError: true)
            }
            beginValue(.newKey(name, kind: kind))
        case .item(let row, let path, _):
            beginValue(.newItem(row: row, path: path, itemKey: name, kind: kind))
        }
    }

    /// Asks for the value of something new; an empty container needs none and is written at once.
    private func beginValue(_ target: BrowserState.EditTarget) {
        let kind: ValueKind
        switch target {
        case .element(_, _, let elementKind): kind = elementKind
        case .newKey(_, let newKind), .newItem(_, _, _, let newKind): kind = newKind
        }
        if kind == .array || kind == .dictionary {
            update { $0.mode = .browsing }
            return commit(target, text: "")
        }
        update { $0.mode = .editing(target, LineEditor()) }
    }
}
