// SPDX-License-Identifier: Apache-2.0
import PrefsPlist
import PrefsStore

/// Lays the browser's state out on a screen: the domains on the left; on the right the selected domain's keys
/// (value, type, layer), and below them the selected key in detail (its whole value as an outline, and every layer
/// that holds it); a status line at the bottom. Every text goes through ``Frame/Line/append(_:width:style:)``, which
/// escapes control characters, so nothing a domain holds reaches the terminal as a command.
struct BrowserView {
    let state: BrowserState
    let route: String

    /// The smallest screen the browser lays out; a smaller one gets a line that says so.
    static let minimumSize = ScreenSize(rows: 10, columns: 40)

    func frame(size: ScreenSize) -> Frame {
        guard size.rows >= Self.minimumSize.rows, size.columns >= Self.minimumSize.columns else {
            var line = Frame.Line()
            line.append("enlarge the terminal (40×10 at least)", width: max(1, size.columns))
            return Frame(lines: [line] + Array(repeating: Frame.Line(), count: max(0, size.rows - 1)))
        }
        if case .help = state.mode { return helpFrame(size: size) }
        let width = size.columns
        let leftWidth = max(18, min(40, width / 3))
        let rightWidth = width - leftWidth - 1
        let bodyRows = size.rows - 2
        var lines: [Frame.Line] = []

        var header = Frame.Line()
        let count = state.visibleDomains.count
        header.append(
            " defaults browse · \(route) · \(count) domain\(count == 1 ? "" : "s")", width: width,
            style: Style(color: .accent, bold: true, reverse: true))
        lines.append(header)

        let left = domainLines(width: leftWidth, rows: bodyRows)
        let right: [Frame.Line]
        if case .results(let query, let hits, let selected) = state.mode {
            right = resultLines(query: query, hits: hits, selected: selected, width: rightWidth, rows: bodyRows)
        } else {
            let keyRows = max(3, bodyRows * 11 / 20)
            right =
                keyLines(width: rightWidth, rows: keyRows)
                + detailLines(width: rightWidth, rows: bodyRows - keyRows)
        }
        for row in 0..<bodyRows {
            var line = left[row]
            line.append("│", width: 1, style: Style(dim: true))
            line.segments += right[row].segments
            lines.append(line)
        }
        lines.append(statusLine(width: width))
        return Frame(lines: lines)
    }

    // MARK: Panes

    private func domainLines(width: Int, rows: Int) -> [Frame.Line] {
        var lines: [Frame.Line] = []
        var title = Frame.Line()
        let filtering: Bool
        if case .filtering = state.mode { filtering = true } else { filtering = false }
        let filter = state.filter.text
        let titleText =
            filtering ? " filter: \(filter)▏" : (filter.isEmpty ? " Domains (f filters)" : " filter: \(filter)")
        title.append(titleText, width: width, style: Style(color: filtering ? .accent : nil, bold: true))
        lines.append(title)
        let visible = state.visibleDomains
        let listRows = rows - 1
        let scroll = Self.scroll(selected: state.domainIndex, current: state.domainScroll, rows: listRows)
        for index in scroll..<(scroll + listRows) {
            var line = Frame.Line()
            if visible.indices.contains(index) {
                let entry = visible[index]
                let selected = index == state.domainIndex
                let letters = entry.layerLetters
                let nameWidth = width - letters.count - 2
                let style = Style(
                    color: entry.scopes.contains(.forced) ? .forced : nil, bold: selected,
                    reverse: selected && state.focus == .domains, underline: selected && state.focus != .domains)
                line.append(" " + entry.name.rawValue, width: nameWidth, style: style)
                line.append(letters + " ", width: width - nameWidth, style: Style(reverse: style.reverse, dim: true))
            } else {
                line.append("", width: width)
            }
            lines.append(line)
        }
        return lines
    }

    private func keyLines(width: Int, rows: Int) -> [Frame.Line] {
        var lines: [Frame.Line] = []
        // A narrow pane drops the type column, then the layer's (the colour and the detail pane still say it).
        let typeWidth = width >= 56 ? 11 : 0
        let layerWidth = width >= 36 ? min(22, max(8, width / 5)) : 0
        let markerWidth = 2
        let rest = width - typeWidth - layerWidth - markerWidth
        let keyWidth = max(6, rest * 2 / 5)
        let valueWidth = rest - keyWidth
        var title = Frame.Line()
        let name = state.shownDomain?.rawValue ?? "no domain"
        title.append(
            " " + name + " · \(state.rows.count) key\(state.rows.count == 1 ? "" : "s")", width: width,
            style: Style(bold: true))
        lines.append(title)
        let listRows = rows - 1
        if state.rows.isEmpty {
            var line = Frame.Line()
            line.append(
                state.shownDomain == nil ? "" : "  (no keys; n adds one)", width: width, style: Style(dim: true))
            lines.append(line)
        }
        let scroll = Self.scroll(selected: state.keyIndex, current: state.keyScroll, rows: listRows)
        for index in scroll..<(scroll + listRows) where lines.count < rows {
            var line = Frame.Line()
            guard state.rows.indices.contains(index) else {
                line.append("", width: width)
                lines.append(line)
                continue
            }
            let row = state.rows[index]
            let selected = index == state.keyIndex
            let changed = state.highlighted[row.key] != nil
            let differs = state.schema?.keys[row.key]?.defaultValue.map { $0 != row.value } ?? false
            let marker = row.isForced ? "!" : (row.shadowedLayers > 0 ? "^" : (differs ? "*" : " "))
            let base = Style(
                color: changed ? .changed : nil, bold: selected || changed, reverse: selected && state.focus == .keys,
                underline: selected && state.focus == .detail)
            line.append(marker, width: markerWidth, style: Style(color: row.isForced ? .forced : .accent))
            line.append(row.key, width: keyWidth, style: base)
            line.append(" " + ValueText.short(row.value), width: valueWidth, style: base)
            line.append(" " + row.value.typeName, width: typeWidth, style: Style(dim: true))
            line.append(
                " " + Self.layerName(row.layer), width: layerWidth, style: Style(color: Self.color(of: row.layer)))
            lines.append(line)
        }
        while lines.count < rows { lines.append(Self.blank(width)) }
        return lines
    }

    private func detailLines(width: Int, rows: Int) -> [Frame.Line] {
        var lines: [Frame.Line] = []
        var rule = Frame.Line()
        rule.append(String(repeating: "─", count: width), width: width, style: Style(dim: true))
        lines.append(rule)
        guard let row = state.selectedRow else {
            while lines.count < rows { lines.append(Self.blank(width)) }
            return lines
        }
        var title = Frame.Line()
        let lock = row.isForced ? " · forced: read-only" : ""
        title.append(
            " \(row.key) · \(row.value.typeName)\(lock)", width: width,
            style: Style(color: row.isForced ? .forced : nil, bold: true))
        lines.append(title)
        if let rule = state.schema?.keys[row.key] {
            var facts = [rule.requirement]
            if let defaultValue = rule.defaultValue {
                facts.append(
                    "default \(ValueText.short(defaultValue))" + (defaultValue == row.value ? " (as now)" : ""))
            }
            var line = Frame.Line()
            line.append(
                " " + (rule.summary.map { $0 + " · " } ?? "") + facts.joined(separator: " · "), width: width,
                style: Style(color: .accent))
            lines.append(line)
        }

        // The layers take what they need (at most half), the outline the rest.
        var layerLines: [Frame.Line] = []
        if let explanation = state.explanation {
            let candidates = [explanation.winner].compactMap { $0 } + explanation.shadowed
            for (index, candidate) in candidates.enumerated() {
                var line = Frame.Line()
                let origin = candidate.fleetSource.map { "\($0)" } ?? candidate.path ?? ""
                let nameWidth = min(24, width / 3)
                line.append(index == 0 ? " ▸ " : "   ", width: 3, style: Style(color: .accent))
                line.append(
                    Self.layerName(candidate.layer), width: nameWidth,
                    style: Style(color: Self.color(of: candidate.layer)))
                let valueWidth = max(4, (width - 3 - nameWidth) / 3)
                line.append(" " + ValueText.short(candidate.value), width: valueWidth, style: Style(dim: index > 0))
                line.append(" " + origin, width: width - 3 - nameWidth - valueWidth, style: Style(dim: true))
                layerLines.append(line)
            }
            for skipped in explanation.skipped {
                var line = Frame.Line()
                line.append(
                    "   \(skipped.layer): skipped, \(skipped.error.message)", width: width,
                    style: Style(color: .warning))
                layerLines.append(line)
            }
        }
        let outline = state.outline
        let room = rows - lines.count
        let layerRoom = layerLines.isEmpty ? 0 : min(layerLines.count + 1, room / 2)
        let outlineRows = max(1, min(outline.count, room - layerRoom))
        let scroll = Self.scroll(selected: state.detailIndex, current: state.detailScroll, rows: outlineRows)
        for index in scroll..<(scroll + outlineRows) where lines.count < rows {
            var line = Frame.Line()
            guard outline.indices.contains(index) else { break }
            let item = outline[index]
            let selected = index == state.detailIndex && state.focus == .detail
            let fold = item.isContainer ? (item.isFolded ? "▸ " : "▾ ") : "  "
            let indent = String(repeating: "  ", count: item.depth)
            let summary: String
            switch item.value {
            case .array(let items) where item.isFolded || items.isEmpty: summary = "(\(items.count) items)"
            case .dictionary(let entries) where item.isFolded || entries.isEmpty: summary = "{\(entries.count) keys}"
            case .array(let items): summary = "(\(items.count) items)"
            case .dictionary(let entries): summary = "{\(entries.count) keys}"
            default: summary = ValueText.short(item.value)
            }
            line.append(
                " " + indent + fold + item.label + " = " + summary, width: width,
                style: Style(reverse: selected))
            lines.append(line)
        }
        if !layerLines.isEmpty, lines.count < rows {
            var heading = Frame.Line()
            heading.append(" layers, top to bottom:", width: width, style: Style(dim: true))
            lines.append(heading)
            for line in layerLines where lines.count < rows { lines.append(line) }
        }
        while lines.count < rows { lines.append(Self.blank(width)) }
        return Array(lines.prefix(rows))
    }

    private func resultLines(
        query: String, hits: [BrowserState.SearchHit], selected: Int, width: Int, rows: Int
    ) -> [Frame.Line] {
        var lines: [Frame.Line] = []
        var title = Frame.Line()
        title.append(
            " \(hits.count) match\(hits.count == 1 ? "" : "es") for \(query) (Enter opens, Esc returns)",
            width: width, style: Style(color: .accent, bold: true))
        lines.append(title)
        let domainWidth = min(30, width / 3)
        let keyWidth = min(30, width / 3)
        let scroll = Self.scroll(selected: selected, current: 0, rows: rows - 1)
        for index in scroll..<(scroll + rows - 1) {
            var line = Frame.Line()
            if hits.indices.contains(index) {
                let hit = hits[index]
                let style = Style(reverse: index == selected)
                line.append(" " + hit.domain.rawValue, width: domainWidth, style: style)
                line.append(" " + hit.key, width: keyWidth, style: style)
                line.append(" " + ValueText.short(hit.value), width: width - domainWidth - keyWidth, style: style)
            } else {
                line.append("", width: width)
            }
            lines.append(line)
        }
        return lines
    }

    private func statusLine(width: Int) -> Frame.Line {
        var line = Frame.Line()
        switch state.mode {
        case .searching(let editor):
            line.append(
                " search every domain: " + editor.text + "▏", width: width, style: Style(color: .accent, bold: true))
        case .editing(let target, let editor):
            let what: String
            switch target {
            case .element(let row, let path, let kind): what = "\(row.key)\(Self.pathText(path)) (\(kind.rawValue))"
            case .newKey(let key, let kind): what = "new key \(key) (\(kind.rawValue), \(kind.example))"
            case .newItem(let row, let path, let itemKey, let kind):
                what =
                    "new element \(itemKey ?? "") of \(row.key)\(Self.pathText(path)) (\(kind.rawValue), \(kind.example))"
            }
            line.append(" \(what): " + editor.text + "▏", width: width, style: Style(color: .accent, bold: true))
        case .choosingKind:
            let letters = ValueKind.allCases.map { "\($0.letter) \($0.rawValue)" }.joined(separator: ", ")
            line.append(" type? " + letters + " (Esc cancels)", width: width, style: Style(color: .accent, bold: true))
        case .naming(_, let kind, let editor):
            line.append(
                " name of the new \(kind.rawValue): " + editor.text + "▏", width: width,
                style: Style(color: .accent, bold: true))
        case .confirmingDelete(let key):
            line.append(
                " delete \(key) from \(state.shownDomain?.rawValue ?? "") (yours and by-host)? y/n", width: width,
                style: Style(color: .warning, bold: true))
        default:
            if let message = state.message {
                line.append(
                    " " + message.text, width: width, style: Style(color: message.isError ? .warning : .changed))
            } else {
                line.append(
                    " ↑↓ move · Tab pane · f filter · / search · e edit · n new · d delete · r reset · ? help · q quit",
                    width: width, style: Style(dim: true))
            }
        }
        return line
    }

    private func helpFrame(size: ScreenSize) -> Frame {
        let text = [
            " defaults browse: every domain, every layer, live",
            "",
            "  ↑ ↓ j k, PgUp PgDn, Home End   move",
            "  Tab, ← →                       switch pane (domains, keys, detail)",
            "  Enter                          open; in the detail pane, fold or unfold",
            "  f                              filter the domains as you type (Esc clears)",
            "  /                              search every domain's keys and values",
            "  e                              edit the key or the element (a boolean toggles)",
            "  n                              add a key (choose its type, then its name and value)",
            "  a  x                           add an element to a container, remove an element",
            "  d                              delete the key from your layers",
            "  r                              reset: drop your value so the layers below show",
            "  q, Control-C                   quit",
            "",
            "  ! forced (read-only)   ^ shadows a lower layer   * differs from the schema's default",
            "  green: changed by another process",
            "  layers: F forced, M fleet-managed, H by-host, U user, S system, D shipped defaults",
            "",
            " Every edit is one atomic write: if the value changed since it was shown, nothing is",
            " written and the new value is shown. Any key closes this help.",
        ]
        var lines = text.map { item -> Frame.Line in
            var line = Frame.Line()
            line.append(item, width: size.columns)
            return line
        }
        while lines.count < size.rows { lines.append(Self.blank(size.columns)) }
        return Frame(lines: Array(lines.prefix(size.rows)))
    }

    // MARK: Helpers

    /// The first row to show so that `selected` is visible.
    static func scroll(selected: Int, current: Int, rows: Int) -> Int {
        guard rows > 0 else { return 0 }
        if selected < current { return selected }
        if selected >= current + rows { return selected - rows + 1 }
        return max(0, current)
    }

    static func blank(_ width: Int) -> Frame.Line {
        var line = Frame.Line()
        line.append("", width: width)
        return line
    }

    static func pathText(_ path: [ValueOutline.Step]) -> String {
        path.map { step in
            switch step {
            case .index(let index): "[\(index)]"
            case .key(let key): ".\(key)"
            }
        }.joined()
    }

    /// A layer as the key list names it.
    static func layerName(_ layer: Layer) -> String {
        switch layer {
        case .domain(let id):
            switch id.scope {
            case .user: id.name.isGlobal ? "global" : "user"
            case .byHost: "by-host"
            case .system: "system"
            case .forced: "forced"
            case .shipped: "shipped"
            case .fleetForced: "fleet forced"
            case .fleetDefault: "fleet default"
            }
        case .arguments: "arguments"
        case .registered: "registered"
        }
    }

    static func color(of layer: Layer) -> Style.Color {
        switch layer {
        case .domain(let id):
            switch id.scope {
            case .user: id.name.isGlobal ? .global : .user
            case .byHost: .byHost
            case .system: .system
            case .forced: .forced
            case .shipped: .shipped
            case .fleetForced, .fleetDefault: .fleet
            }
        case .arguments: .argument
        case .registered: .registered
        }
    }
}
