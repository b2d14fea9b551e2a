// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

extension KeySchema {
    /// Reads one key's dictionary of a schema file; `fail` makes the error of a problem.
    init(
        propertyList: PlistValue, key: String, fail: (String) -> PrefsStoreError
    ) throws(PrefsStoreError) {
        guard case .dictionary(let fields) = propertyList else {
            throw fail("\(DomainSchema.kind(propertyList)), not a dictionary of Type, Default, …")
        }
        if let unknown = fields.keys.sorted().first(where: { !DomainSchema.keyFields.contains($0) }) {
            let known = DomainSchema.keyFields.sorted().joined(separator: ", ")
            throw fail("unknown field \(unknown) (a key holds \(known))")
        }
        let names = SchemaType.allCases.map(\.rawValue).joined(separator: ", ")
        guard case .string(let typeName)? = fields["Type"] else {
            throw fail("Type is missing or not a string (one of \(names))")
        }
        guard let type = SchemaType(rawValue: typeName) else {
            throw fail("Type \(typeName) is not one of \(names)")
        }
        func bound(_ field: String) throws(PrefsStoreError) -> PlistValue? {
            guard let given = fields[field] else { return nil }
            let value = KeySchema.spelled(given, as: .real)
            guard type.isNumeric else { throw fail("\(field) is given, but a \(type.rawValue) has no range") }
            switch value {
            case .integer: return value
            case .real(let real) where real.isFinite: return value
            default: throw fail("\(field) \(value.defaultsDescription) is not a number")
            }
        }
        let minimum = try bound("Minimum")
        let maximum = try bound("Maximum")
        if let minimum, let maximum, let order = KeySchema.compare(minimum, maximum), order > 0 {
            throw fail(
                "Minimum \(KeySchema.text(minimum)) is greater than Maximum \(KeySchema.text(maximum))")
        }
        var choices: [PlistValue] = []
        switch fields["Choices"] {
        case nil: break
        case .array(let elements)?:
            guard !elements.isEmpty else { throw fail("Choices is empty") }
            choices = elements.map { KeySchema.spelled($0, as: type) }
            for (index, element) in choices.enumerated() where !type.accepts(element) {
                throw fail("Choices element \(index) is \(DomainSchema.kind(element)), not \(type.phrase)")
            }
        case let other?: throw fail("Choices is \(DomainSchema.kind(other)), not an array")
        }
        var ignoresCase = false
        switch fields["IgnoresCase"] {
        case nil: break
        case let flag? where KeySchema.spelled(flag, as: .boolean) == .bool(true): ignoresCase = true
        case let flag? where KeySchema.spelled(flag, as: .boolean) == .bool(false): ignoresCase = false
        case let other?: throw fail("IgnoresCase is \(DomainSchema.kind(other)), not a boolean")
        }
        self.init(
            type, default: fields["Default"].map { KeySchema.spelled($0, as: type) }, minimum: minimum,
            maximum: maximum, choices: choices,
            ignoresCase: ignoresCase, summary: try DomainSchema.text(fields["Summary"], "Summary", fail),
            details: try DomainSchema.text(fields["Description"], "Description", fail))
        if let value = defaultValue, !accepts(value) {
            throw fail(
                "Default \(value.defaultsDescription) (\(value.typeName)) breaks the key's own rule: it \(requirement)")
        }
    }

    /// `value`, or the number or boolean a string spells when `type` wants one: OpenStep text, which has only strings,
    /// writes `Minimum = 6;` and `Default = YES;` (docs/SCHEMAS.md).
    static func spelled(_ value: PlistValue, as type: SchemaType) -> PlistValue {
        guard case .string(let text) = value else { return value }
        switch type {
        case .integer:
            return Int64(text).map { .integer(PlistInteger($0)) } ?? value
        case .real, .seconds:
            if let integer = Int64(text) { return .integer(PlistInteger(integer)) }
            return Double(text).map(PlistValue.real) ?? value
        case .boolean:
            switch text.lowercased() {
            case "yes", "true": return .bool(true)
            case "no", "false": return .bool(false)
            default: return value
            }
        default:
            return value
        }
    }
}
