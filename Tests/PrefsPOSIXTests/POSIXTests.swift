// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPOSIX
import PrefsTestSupport
import Testing

@Suite("PrefsPOSIX")
struct POSIXTests {
    @Test("an atomic write replaces the file by a rename and leaves no temp file")
    func atomicWrite() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-posix")
        let path = directory.file("settings.plist")
        let first = try POSIX.writeFileAtomically(
            Array("first".utf8), to: path, newFileMode: 0o600, keepsExistingMode: false, directorySyncIsRequired: true)
        #expect(first.kind == .regular)
        #expect(first.permissions == 0o600)
        // A reader that opened the old file keeps reading the old contents: the file was replaced, not rewritten.
        let reader = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        let second = try POSIX.writeFileAtomically(
            Array("second".utf8), to: path, newFileMode: 0o600, keepsExistingMode: false, directorySyncIsRequired: true)
        #expect(second.inode != first.inode)
        #expect(String(decoding: reader.readDataToEndOfFile(), as: UTF8.self) == "first")
        try reader.close()
        #expect(try POSIX.readFile(path, maxBytes: 1 << 20) == Array("second".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["settings.plist"])
    }

    @Test("an atomic write keeps an existing file's mode when asked")
    func atomicWriteModes() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-posix")
        let path = directory.file("out.plist")
        try POSIX.writeFileAtomically(
            [1], to: path, newFileMode: 0o600, keepsExistingMode: true, directorySyncIsRequired: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        let kept = try POSIX.writeFileAtomically(
            [2], to: path, newFileMode: 0o600, keepsExistingMode: true, directorySyncIsRequired: false)
        #expect(kept.permissions == 0o640)
        let reset = try POSIX.writeFileAtomically(
            [3], to: path, newFileMode: 0o600, keepsExistingMode: false, directorySyncIsRequired: false)
        #expect(reset.permissions == 0o600)
    }

    @Test("a failed atomic write names its temp file, leaves nothing behind and the old file unchanged")
    func atomicWriteFailure() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-posix")
        let missing = directory.file("missing")
        do {
            try POSIX.writeFileAtomically(
                [1], to: missing + "/file", newFileMode: 0o600, keepsExistingMode: false, directorySyncIsRequired: true)
            Issue.record("writing into a missing directory succeeded")
        } catch {
            #expect(error.call == "open")
            #expect(error.errno == ENOENT)
            let name = String(error.path?.split(separator: "/").last ?? "")
            #expect(TemporaryFileName.owner(of: name, fileName: "file") == getpid())
            #expect(error.message == "cannot create a temporary file in \(missing): No such file or directory")
        }
        // Replacing a directory with a file fails at the rename; the temp file is removed again.
        let target = directory.file("target")
        try FileManager.default.createDirectory(atPath: target + "/inside", withIntermediateDirectories: true)
        do {
            try POSIX.writeFileAtomically(
                [1], to: target, newFileMode: 0o600, keepsExistingMode: false, directorySyncIsRequired: true)
            Issue.record("a file replaced a directory")
        } catch {
            #expect(error.call == "rename")
            #expect(error.path == target)
            #expect(error.message.hasPrefix("cannot replace \(target): "))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["target"])
    }

    @Test("a missing file's error names the call, the path and errno; a directory is refused")
    func readErrors() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-posix")
        let path = directory.file("absent.plist")
        do {
            _ = try POSIX.readFile(path, maxBytes: 1 << 20)
            Issue.record("reading a missing file succeeded")
        } catch {
            #expect(error == SystemCallError("open", path: path, errno: ENOENT))
            #expect(error.description == "open(\(path)): No such file or directory")
            #expect(error.message == "cannot open \(path): No such file or directory")
        }
        do {
            _ = try POSIX.readFile(directory.path, maxBytes: 1 << 20)
            Issue.record("reading a directory succeeded")
        } catch {
            #expect(error.errno == EISDIR)
            #expect(error.message == "\(directory.path) is a directory")
        }
        do {
            _ = try POSIX.readFile(directory.path, maxBytes: 10, regularFileOnly: true, followsSymbolicLinks: false)
            Issue.record("reading a directory as a regular file succeeded")
        } catch {
            #expect(error.description == "open(\(directory.path)): not a regular file")
        }
    }

    @Test("a file is read whole, or not at all beyond the limit")
    func readLimits() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-posix")
        let path = directory.file("big")
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try POSIX.readFile(path, maxBytes: 1 << 20) == bytes)
        let limited = try POSIX.readFile(path, maxBytes: 1000, regularFileOnly: true, followsSymbolicLinks: false)
        #expect(limited.bytes == nil)
        #expect(limited.size == 200_000)
        #expect(limited.status.size == 200_000)
        let link = directory.file("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(throws: SystemCallError("open", path: link, errno: ELOOP)) {
            try POSIX.readFile(link, maxBytes: .max, regularFileOnly: true, followsSymbolicLinks: false)
        }
    }

    @Test("a device that never ends is read up to the limit and refused, naming the path and the limit")
    func endlessDevice() throws {
        let error = #expect(throws: SystemCallError.self) { try POSIX.readFile("/dev/zero", maxBytes: 1 << 20) }
        #expect(error?.isTooLarge == true)
        #expect(error?.message == "cannot read /dev/zero: more than 1048576 bytes")
        // Exactly the limit is fine; one byte more is not.
        let directory = try TemporaryDirectory(prefix: "prefs-posix")
        let path = directory.file("exact")
        try Data(repeating: 1, count: 70_000).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        #expect(try POSIX.readAll(from: descriptor, name: "exact", maxBytes: 70_000).count == 70_000)
        #expect(throws: POSIX.tooLarge(path, maxBytes: 69_999)) { try POSIX.readFile(path, maxBytes: 69_999) }
    }

    @Test("reading a pipe survives signals that interrupt open and read (EINTR)")
    func interruptedRead() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-posix")
        let path = directory.file("fifo")
        #expect(mkfifo(path, 0o600) == 0)
        // A handler installed without SA_RESTART: a signal makes a blocked open or read fail with EINTR.
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        sigaction(SIGUSR1, &action, &previous)
        defer { sigaction(SIGUSR1, &previous, nil) }

        // Should the reader give up, a write would raise SIGPIPE rather than fail.
        let previousPipeHandler = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previousPipeHandler) }

        let reader = InterruptibleReader(path: path)
        let thread = Thread { reader.run() }
        thread.start()
        reader.interrupt(for: .milliseconds(100))  // blocked in open
        // Non-blocking: fails (ENXIO) instead of waiting for ever if the reader's open gave up.
        let writer = open(path, O_WRONLY | O_NONBLOCK)
        #expect(writer >= 0, "the reader's open was not retried")
        guard writer >= 0 else { return }
        _ = write(writer, "first ", 6)
        reader.interrupt(for: .milliseconds(100))  // blocked in read
        _ = write(writer, "second", 6)
        close(writer)
        let result = reader.result()
        #expect(reader.interruptions > 0)
        #expect(try result?.get() == Array("first second".utf8))
    }

    @Test("the temp-file naming scheme tells the file and the writer")
    func temporaryNames() {
        let name = TemporaryFileName.make(for: "com.example.app.plist", processID: 4242)
        #expect(name.hasPrefix(".com.example.app.plist.tmp-4242-"))
        #expect(TemporaryFileName.owner(of: name, fileName: "com.example.app.plist") == 4242)
        #expect(TemporaryFileName.owner(of: name, fileName: "com.example.plist") == nil)
        #expect(TemporaryFileName.owner(of: name)?.fileName == "com.example.app.plist")
        #expect(TemporaryFileName.owner(of: name)?.pid == 4242)
        #expect(TemporaryFileName.owner(of: "com.example.app.plist") == nil)
        #expect(TemporaryFileName.directory(ofPath: "/a/b/c") == "/a/b")
        #expect(TemporaryFileName.directory(ofPath: "/c") == "/")
        #expect(TemporaryFileName.directory(ofPath: "c") == ".")
    }

    @Test("a file whose name has 255 bytes is replaced atomically: its temp file's name is shortened to fit")
    func longestFileName() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-posix")
        let fileName = String(repeating: "n", count: 249) + ".plist"
        let path = directory.file(fileName)
        try POSIX.writeFileAtomically(
            [1, 2], to: path, newFileMode: 0o600, keepsExistingMode: false, directorySyncIsRequired: true)
        try POSIX.writeFileAtomically(
            [3], to: path, newFileMode: 0o600, keepsExistingMode: false, directorySyncIsRequired: true)
        #expect(try POSIX.readFile(path, maxBytes: 1 << 20) == [3])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [fileName])

        let name = TemporaryFileName.make(for: fileName, processID: Int32.max)
        #expect(name.utf8.count <= 225)
        #expect(TemporaryFileName.owner(of: name, fileName: fileName) == Int32.max)
        #expect(TemporaryFileName.owner(of: name)?.pid == Int32.max)
        // Two long names with the same first 183 bytes get different temp names.
        let other = String(repeating: "n", count: 249) + ".plisT"
        #expect(TemporaryFileName.owner(of: name, fileName: other) == nil)
        #expect(TemporaryFileName.tag(of: fileName) != TemporaryFileName.tag(of: other))
        #expect(TemporaryFileName.tag(of: "short.plist") == "short.plist")
        // A multi-byte character is never cut in half.
        let accented = String(repeating: "é", count: 120)
        #expect(TemporaryFileName.tag(of: accented).utf8.count <= TemporaryFileName.maxTagBytes)
        #expect(TemporaryFileName.tag(of: accented).hasPrefix(String(repeating: "é", count: 91) + "~"))
    }

    @Test("file status, directories, the environment and threads")
    func processAndFiles() throws {
        let directory = try TemporaryDirectory(prefix: "prefs-posix")
        #expect(try POSIX.fileStatus(atPath: directory.file("none"), followsSymbolicLinks: false) == nil)
        #expect(POSIX.isDirectory(directory.path))
        #expect(!POSIX.isDirectory(directory.file("none")))
        #expect(try POSIX.makeDirectory(directory.file("sub"), mode: 0o700))
        #expect(try !POSIX.makeDirectory(directory.file("sub"), mode: 0o700))
        try POSIX.removeFile(directory.file("none"))
        #expect(POSIX.environmentVariable("PATH") == ProcessInfo.processInfo.environment["PATH"])
        #expect(POSIX.environmentVariable("PREFS_POSIX_TESTS_UNSET_VARIABLE") == nil)
        #expect(POSIX.errorText(ENOENT) == "No such file or directory")
        let ran = DispatchSemaphore(value: 0)
        try POSIX.startThread { ran.signal() }
        #expect(ran.wait(timeout: .now() + 5) == .success)
    }
}

/// Reads a FIFO with `POSIX.readFile` on its own thread while the test interrupts it with signals.
final class InterruptibleReader: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var thread: pthread_t?
    private var outcome: Result<[UInt8], SystemCallError>?
    private let done = DispatchSemaphore(value: 0)
    private(set) var interruptions = 0

    init(path: String) {
        self.path = path
    }

    func run() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGUSR1)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        lock.withLock { thread = pthread_self() }
        let outcome = Result { () throws(SystemCallError) in try POSIX.readFile(path, maxBytes: 1 << 20) }
        lock.withLock { self.outcome = outcome }
        done.signal()
    }

    /// Sends SIGUSR1 to the reading thread every few milliseconds for `duration`.
    func interrupt(for duration: Duration) {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            lock.withLock {
                if let thread, outcome == nil {
                    pthread_kill(thread, SIGUSR1)
                    interruptions += 1
                }
            }
            usleep(2_000)
        }
    }

    /// Waits up to five seconds for the read to end.
    func result() -> Result<[UInt8], SystemCallError>? {
        _ = done.wait(timeout: .now() + 5)
        return lock.withLock { outcome }
    }
}
