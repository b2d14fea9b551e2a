// SPDX-License-Identifier: Apache-2.0
/// What tells one version of a file from another without reading it: device, inode, size and modification time.
///
/// The store writes by renaming a new file into place, so each of its writes has a new inode; an editor that
/// rewrites a file in place changes its size or modification time.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modificationSeconds: Int64
    var modificationNanoseconds: Int64
}
