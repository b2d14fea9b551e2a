// SPDX-License-Identifier: Apache-2.0
/// A benchmark that cannot go on, and why.
public struct BenchmarkError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// Creates an error.
    /// - Parameter description: What went wrong.
    public init(_ description: String) { self.description = description }
}
