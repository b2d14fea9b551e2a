import Glibc

/// The C calls of the module: the executable's path, the home directory, and standard error.
enum SystemInterface {
    /// The path of the running executable (`/proc/self/exe`), or `nil` when it cannot be read.
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An environment variable, or `nil` when unset or empty.
    static func environmentVariable(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// The user's home directory: `HOME`, else the password database's entry.
    static func homeDirectory() -> String? {
        if let home = getenv("HOME"), home.pointee != 0 { return String(cString: home) }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        var status: Int32
        repeat {
            status = getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result)
        } while status == EINTR
        guard status == 0, result != nil, let directory = entry.pw_dir else { return nil }
        return String(cString: directory)
    }

    /// Writes text to standard error in full, retrying interrupted writes.
    static func writeToStandardError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return }
                offset += count
            }
        }
    }
}
