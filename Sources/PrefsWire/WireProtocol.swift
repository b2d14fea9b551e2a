// SPDX-License-Identifier: Apache-2.0
/// Constants of the protocol as a whole.
public enum WireProtocol {
    /// The newest protocol version this module speaks.
    public static let currentVersion = 1
    /// Every protocol version this module speaks.
    public static let supportedVersions: ClosedRange<Int> = 1...1
}
