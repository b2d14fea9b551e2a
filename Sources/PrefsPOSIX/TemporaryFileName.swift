// SPDX-License-Identifier: Apache-2.0
/// The one naming scheme of temp files written next to the file they replace: `.<name>.tmp-<pid>-<random>`.
///
/// The pid tells whose temp file it is: the store recognises its own renames among inotify events and removes the
/// temp files of writers that died before renaming them. A name longer than ``maxTagBytes`` is shortened in the temp
/// file's name (``tag(of:)``), so that the temp file of any file name fits the file system's 255-byte limit.
package enum TemporaryFileName {
    /// The longest file name (in bytes) a file system takes in one path component (`NAME_MAX` on Linux).
    package static let maxFileNameBytes = 255

    /// The longest name that stands for itself in a temp file's name; a longer one is shortened (``tag(of:)``).
    ///
    /// `.<200 bytes>.tmp-<10-digit pid>-<8 hex digits>` is 225 bytes, and a corrupt file set aside as
    /// `<200 bytes>.corrupt-<time>-<n>` stays far below 255 too.
    package static let maxTagBytes = 200

    /// A fresh temp-file name for `fileName`, in the same directory.
    /// - Parameters:
    ///   - fileName: The name (last path component) of the file to replace.
    ///   - processID: The writing process.
    /// - Returns: `.<tag>.tmp-<processID>-<random hex>`, where the tag is `fileName` (or its shortened form,
    ///   ``tag(of:)``); at most 225 bytes whatever the length of `fileName`.
    package static func make(for fileName: String, processID: Int32) -> String {
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return ".\(tag(of: fileName)).tmp-\(processID)-\(random)"
    }

    /// The name that stands for `fileName` in the names of its temp (and set-aside) files: `fileName` itself when it
    /// has at most ``maxTagBytes`` bytes; else its first bytes (whole characters, up to 183 bytes), `~`, and 16 hex
    /// digits of a hash of the whole name (FNV-1a, 64 bits), which tell two long names with the same start apart.
    /// - Parameter fileName: A file name.
    package static func tag(of fileName: String) -> String {
        let bytes = Array(fileName.utf8)
        guard bytes.count > maxTagBytes else { return fileName }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        let hashText = String(repeating: "0", count: 16 - digits.count) + digits
        var prefix = ""
        var count = 0
        for scalar in fileName.unicodeScalars {
            let length = String(scalar).utf8.count
            if count + length > maxTagBytes - 17 { break }
            prefix.unicodeScalars.append(scalar)
            count += length
        }
        return prefix + "~" + hashText
    }

    /// The pid in a temp-file name of `fileName`, or `nil` when `name` is not one.
    /// - Parameters:
    ///   - name: A directory entry.
    ///   - fileName: The file its temp files replace.
    package static func owner(of name: String, fileName: String) -> Int32? {
        let prefix = ".\(tag(of: fileName)).tmp-"
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        guard let dash = rest.firstIndex(of: "-") else { return nil }
        return Int32(rest[..<dash])
    }

    /// The tag (the file name, or its shortened form) and pid of any temp-file name of this scheme, or `nil` when
    /// `name` is not one.
    /// - Parameter name: A directory entry.
    package static func owner(of name: String) -> (fileName: String, pid: Int32)? {
        guard name.hasPrefix(".") else { return nil }
        let bytes = Array(name.utf8)
        let marker = Array(".tmp-".utf8)
        var start = bytes.count - marker.count
        while start > 1 {
            if bytes[start..<(start + marker.count)].elementsEqual(marker) {
                let tag = String(decoding: bytes[1..<start], as: UTF8.self)
                let rest = String(decoding: bytes[(start + marker.count)...], as: UTF8.self)
                guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]) else { return nil }
                return (tag, pid)
            }
            start -= 1
        }
        return nil
    }

    /// The file name and pid of a path whose last component is a temp-file name, or `nil`.
    /// - Parameter path: A path.
    package static func owner(ofPath path: String) -> (fileName: String, pid: Int32)? {
        owner(of: String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""))
    }

    /// The directory part of a path: everything before its last `/` (`/` for a file in the root, `.` without one).
    /// - Parameter path: A path.
    package static func directory(ofPath path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}
