// SPDX-License-Identifier: Apache-2.0
/// Which hosts a managed domain applies to: every host, a named group, or one machine.
package enum FleetTarget: Sendable, Hashable, CustomStringConvertible {
    /// Every host of the fleet.
    case all
    /// The hosts whose prefsd settings name this group (`FleetGroups`).
    case group(String)
    /// The host with this machine id (32 lowercase hexadecimal digits).
    case host(String)

    /// How strongly a target's value wins over another's for the same key: host, then group, then all.
    package var precedence: Int {
        switch self {
        case .host: 2
        case .group: 1
        case .all: 0
        }
    }

    /// `all hosts`, `group lab`, `host 0123…`.
    package var description: String {
        switch self {
        case .all: "all hosts"
        case .group(let name): "group \(name)"
        case .host(let machineID): "host \(machineID)"
        }
    }

    /// Whether a group name is valid: 1–128 bytes of `[A-Za-z0-9._-]`, not starting with `.`.
    package static func isValidGroupName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 128, !name.hasPrefix(".") else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// Whether a machine id is valid: 32 lowercase hexadecimal digits, as `/etc/machine-id` holds.
    package static func isValidMachineID(_ text: String) -> Bool {
        text.utf8.count == 32
            && text.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
            }
    }
}
