// SPDX-License-Identifier: Apache-2.0
public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Pipe {
    /// A pipe whose two descriptors close on exec, for a child's standard streams.
    ///
    /// `Pipe()` makes inheritable descriptors: a child that another test's thread spawns meanwhile (an etcd member, a
    /// prefsd) inherits the write end of this child's output, and reading that output to its end then waits until the
    /// unrelated child exits (most likely why a `defaults fleet` run that fails at once took 97 s once under
    /// `make test`). `Process` still hands the child its end: `dup2` onto a standard stream drops the flag. `pipe2` is
    /// not in Swift's Glibc module, so the flag is set right after the pipe is made: a spawn can still catch it in a
    /// window of a few instructions, not for a whole run.
    public static func closingOnExec() -> Pipe {
        let pipe = Pipe()
        for handle in [pipe.fileHandleForReading, pipe.fileHandleForWriting] {
            _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
        return pipe
    }
}
