// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// The search list of an application, as `getEffective` and effective subscriptions name it: the app domain
/// and its suites in order. The server adds the layers around them (forced, by-host variants, global, system,
/// shipped registration defaults); the argument domain and `register(defaults:)` live in the client process.
///
/// On the wire: `app` (string) and `suites` (array of strings, default empty).
public struct WireSearchList: Sendable, Hashable {
    /// The application domain name.
    public var app: String
    /// The suite domain names, searched in this order after the application domain.
    public var suites: [String]

    /// Creates a search list.
    /// - Parameters:
    ///   - app: The application domain name.
    ///   - suites: The suite domain names, in search order.
    public init(app: String, suites: [String] = []) {
        self.app = app
        self.suites = suites
    }

    func encode(into dictionary: inout PlistDictionary) {
        dictionary["app"] = .string(app)
        if !suites.isEmpty { dictionary["suites"] = .strings(suites) }
    }

    static func decode(from fields: inout WireFields) throws(WireError) -> WireSearchList {
        WireSearchList(app: try fields.string("app"), suites: try fields.optionalStringArray("suites") ?? [])
    }
}
