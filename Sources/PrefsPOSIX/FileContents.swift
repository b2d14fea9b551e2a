// SPDX-License-Identifier: Apache-2.0
/// A file read whole, or found too large to read.
package struct FileContents: Sendable {
    /// The file's bytes; `nil` when the file is larger than the caller accepts (it was not read whole).
    package var bytes: [UInt8]?
    /// The file's size: the bytes read, or for a file too large, the size found.
    package var size: Int
    /// The file's status when it was opened.
    package var status: FileStatus
}
