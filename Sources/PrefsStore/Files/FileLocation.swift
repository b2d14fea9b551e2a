// SPDX-License-Identifier: Apache-2.0
/// A file as a directory and a name inside it: the store creates temp files, renames and syncs within one directory.
struct FileLocation: Hashable, Sendable {
    /// The directory.
    var directory: String
    /// The file's name inside ``directory``.
    var fileName: String

    /// The file's path.
    var path: String { directory + "/" + fileName }
}
