// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsStore

// Every edit is one compare-and-set write of one key in a writable layer (the by-host domain when the key's value
// comes from it, else the user's): if that layer no longer holds what the browser showed, nothing is written, the
// browser says so and shows the new value.

extension Browser {
    /// Starts editing the selected key, or the selected element of its value: a boolean toggles at once, a
    /// container (un)folds, anything else opens the editor with its value.
    func beginEdit() {
        guard let row = state.selectedRow, state.focus != .domains else { return }
        guard !row.isForced else { return refuseForced(row) }
        var path: [ValueOutline.Step] = []
        var value = row.value
        if state.focus == .detail, state.outline.indices.contains(state.detailIndex) {
            path = state.outline[state.detailIndex].path
            value = state.outline[state.detailIndex].value
        }
        switch value {
        case .bool(let flag):
            write(row: row, path: path, value: .bool(!flag))
        case .array, .dictionary:
            if path.isEmpty {
                update { $0.focus = .detail }
                say("choose an element: e edits it, a adds to a container, x removes it, Enter folds")
            } else {
                toggleElementFold(path)
            }
        default:
            let kind = ValueKind(of: value)
            update {
                $0.mode = .editing(
                    .element(row: row, path: path, kind: kind), LineEditor(ValueText.input(value)))
            }
        }
    }

    private func toggleElementFold(_ path: [ValueOutline.Step]) {
        update { state in
            if state.toggled.remove(path) == nil { state.toggled.insert(path) }
        }
    }

    /// Starts adding an element to the container selected in the detail pane (or the key's value).
    func beginAddingItem() {
        guard let row = state.selectedRow, state.focus == .detail else { return }
        guard !row.isForced else { return refuseForced(row) }
        var path: [ValueOutline.Step] = []
        var value = row.value
        if state.outline.indices.contains(state.detailIndex), state.outline[state.detailIndex].isContainer {
            path = state.outline[state.detailIndex].path
            value = state.outline[state.detailIndex].value
        }
        switch value {
        case .array: update { $0.mode = .choosingKind(.item(row: row, path: path, inDictionary: false)) }
        case .dictionary: update { $0.mode = .choosingKind(.item(row: row, path: path, inDictionary: true)) }
        default: say("\(row.key) is not an array or a dictionary: nothing to add to", isError: true)
        }
    }

    /// Removes the element selected in the detail pane.
    func removeElement() {
        guard let row = state.selectedRow, state.focus == .detail,
            state.outline.indices.contains(state.detailIndex)
        else { return }
        guard !row.isForced else { return refuseForced(row) }
        let path = state.outline[state.detailIndex].path
        guard !path.isEmpty else { return say("d deletes the whole key", isError: true) }
        guard case .some(.some(let smaller)) = ValueOutline.replacing(path[...], in: row.value, with: nil) else {
            return say("that element is gone already", isError: true)
        }
        write(row: row, path: [], value: smaller)
    }

    /// Writes what the editor holds.
    func commit(_ target: BrowserState.EditTarget, text: String) {
        guard let name = state.shownDomain else { return }
        update { $0.mode = .browsing }
        do throws(BrowserError) {
            switch target {
            case .element(let row, let path, let kind):
                write(row: row, path: path, value: try ValueText.parse(text, as: kind))
            case .newKey(let key, let kind):
                let value = try ValueText.parse(text, as: kind)
                if let problem = state.schema?.problem(key: key, value: value) {
                    return say(problem + "; nothing was written", isError: true)
                }
                let domain = DomainID(name)
                report(try catalog.write(value, forKey: key, in: domain, expecting: nil), key: key, in: domain)
            case .newItem(let row, let path, let itemKey, let kind):
                let item = try ValueText.parse(text, as: kind)
                guard let grown = ValueOutline.adding(item, key: itemKey, to: path, in: row.value) else {
                    return say("\(itemKey ?? "that element") is there already; nothing was added", isError: true)
                }
                write(row: row, path: [], value: grown)
            }
        } catch {
            say(error.message + "; nothing was written", isError: true)
        }
    }

    /// Writes a key's new value (or the element at `path` of it) to the writable layer the key belongs in.
    func write(row: KeyRow, path: [ValueOutline.Step], value: PlistValue) {
        guard let name = state.shownDomain else { return }
        guard case .some(.some(let whole)) = ValueOutline.replacing(path[...], in: row.value, with: value) else {
            return say("that element is gone; nothing was written", isError: true)
        }
        if let problem = state.schema?.problem(key: row.key, value: whole) {
            return say(problem + " (schema \(state.schema?.path ?? "built in")); nothing was written", isError: true)
        }
        let domain = DomainID(name, scope: row.domain?.scope == .byHost ? .byHost : .user)
        // Compare-and-set against what the layer held when the row was shown: the row's value when the layer
        // supplied it, else nothing (a value there would have won).
        let expected = row.domain == domain ? row.value : nil
        do throws(BrowserError) {
            report(try catalog.write(whole, forKey: row.key, in: domain, expecting: expected), key: row.key, in: domain)
        } catch {
            say(error.message, isError: true)
        }
    }

    /// Deletes a key from the user's layers (by-host and plain).
    func delete(_ key: String) {
        guard let name = state.shownDomain else { return }
        var removed = false
        for domain in [DomainID(name, scope: .byHost), DomainID(name)] {
            guard let stored = catalog.storedValue(of: key, in: domain) else { continue }
            do throws(BrowserError) {
                let outcome = try catalog.write(nil, forKey: key, in: domain, expecting: stored)
                guard outcome == .written else { return report(outcome, key: key, in: domain) }
                removed = true
            } catch {
                return say(error.message, isError: true)
            }
        }
        reloadRows()
        if !removed { return say("\(key) is not in your layers of \(name): nothing to delete", isError: true) }
        let lower = state.rows.first { $0.key == key }
        say(
            lower.map { "deleted \(key); it now reads \(ValueText.short($0.value)) from the \($0.layer)" }
                ?? "deleted \(key)")
    }

    /// Removes the user's value of the selected key, so that the layers below show.
    func reset() {
        guard let row = state.selectedRow, state.focus != .domains else { return }
        guard !row.isForced else { return refuseForced(row) }
        guard let domain = row.domain, domain.scope.isWritable else {
            return say("\(row.key) comes from the \(row.layer); you have no value of it to reset", isError: true)
        }
        do throws(BrowserError) {
            let outcome = try catalog.write(nil, forKey: row.key, in: domain, expecting: row.value)
            guard outcome == .written else { return report(outcome, key: row.key, in: domain) }
        } catch {
            return say(error.message, isError: true)
        }
        reloadRows()
        let lower = state.rows.first { $0.key == row.key }
        let schemaDefault = state.schema?.keys[row.key]?.defaultValue.map {
            "reset \(row.key): no layer holds it, so it reads the schema's default, \(ValueText.short($0))"
        }
        say(
            lower.map { "reset \(row.key): it now reads \(ValueText.short($0.value)) from the \($0.layer)" }
                ?? schemaDefault ?? "reset \(row.key): no other layer holds it")
    }

    func refuseForced(_ row: KeyRow) {
        let path = state.explanation?.winner?.path.map { " (\($0))" } ?? ""
        say(
            "\(row.key) is forced by the administrator in the \(row.layer)\(path): it cannot be changed here",
            isError: true)
    }

    private func report(_ outcome: BrowserCatalog.EditOutcome, key: String, in domain: DomainID) {
        reloadRows()
        switch outcome {
        case .written:
            if let index = state.rows.firstIndex(where: { $0.key == key }) { update { $0.keyIndex = index } }
            explainSelectedKey()
            say("wrote \(key) in \(domain)")
        case .conflict(let current):
            let now = current.map { "it is now \(ValueText.short($0))" } ?? "it has been removed"
            say("\(key) changed since it was shown: \(now); nothing was written", isError: true)
        }
    }
}
