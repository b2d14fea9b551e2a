// SPDX-License-Identifier: Apache-2.0
/// What `stat` says about a file: its kind, owner, mode, and what tells one version of it from another.
package struct FileStatus: Sendable, Hashable {
    /// The kinds of file the modules tell apart.
    package enum Kind: Sendable, Hashable {
        case regular, directory, symbolicLink, socket, other
    }

    /// The kind of file.
    package var kind: Kind
    /// The owner's user id.
    package var ownerID: UInt32
    /// The permission bits (`st_mode & 07777`).
    package var permissions: UInt32
    /// The device the file is on.
    package var device: UInt64
    /// The inode number.
    package var inode: UInt64
    /// The size in bytes.
    package var size: Int64
    /// The modification time: whole seconds since 1970-01-01 UTC…
    package var modificationSeconds: Int64
    /// …and nanoseconds.
    package var modificationNanoseconds: Int64
}
