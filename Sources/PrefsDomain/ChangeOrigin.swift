// SPDX-License-Identifier: Apache-2.0
/// Who made a change.
public enum ChangeOrigin: Hashable, Sendable, CustomStringConvertible {
    /// This process, through this store.
    case thisProcess
    /// This store, on behalf of a client process (the daemon passes its peer's credentials).
    case client(pid: Int32, uid: UInt32)
    /// Another process that writes like this store does (its pid is in the name of the file it renamed into place).
    case otherProcess(pid: Int32)
    /// A change on disk by some other writer: a hand edit, an editor, a script, or a writer that cannot be
    /// told apart (after an inotify queue overflow, say).
    case external

    public var description: String {
        switch self {
        case .thisProcess: "this process"
        case .client(let pid, let uid): "client pid \(pid) uid \(uid)"
        case .otherProcess(let pid): "process \(pid)"
        case .external: "external edit"
        }
    }
}
