/// The one naming scheme of temp files written next to the file they replace: `.<name>.tmp-<pid>-<random>`.
///
/// The pid tells whose temp file it is: the store recognises its own renames among inotify events and removes the
/// temp files of writers that died before renaming them.
package enum TemporaryFileName {
    /// A fresh temp-file name for `fileName`, in the same directory.
    /// - Parameters:
    ///   - fileName: The name (last path component) of the file to replace.
    ///   - processID: The writing process.
    /// - Returns: `.<fileName>.tmp-<processID>-<random hex>`.
    package static func make(for fileName: String, processID: Int32) -> String {
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return ".\(fileName).tmp-\(processID)-\(random)"
    }

    /// The pid in a temp-file name of `fileName`, or `nil` when `name` is not one.
    /// - Parameters:
    ///   - name: A directory entry.
    ///   - fileName: The file its temp files replace.
    package static func owner(of name: String, fileName: String) -> Int32? {
        let prefix = ".\(fileName).tmp-"
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        guard let dash = rest.firstIndex(of: "-") else { return nil }
        return Int32(rest[..<dash])
    }

    /// The file name and pid of any temp-file name of this scheme, or `nil` when `name` is not one.
    /// - Parameter name: A directory entry.
    package static func owner(of name: String) -> (fileName: String, pid: Int32)? {
        guard name.hasPrefix(".") else { return nil }
        let bytes = Array(name.utf8)
        let marker = Array(".tmp-".utf8)
        var start = bytes.count - marker.count
        while start > 1 {
            if bytes[start..<(start + marker.count)].elementsEqual(marker) {
                let fileName = String(decoding: bytes[1..<start], as: UTF8.self)
                guard let pid = owner(of: name, fileName: fileName) else { return nil }
                return (fileName, pid)
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
