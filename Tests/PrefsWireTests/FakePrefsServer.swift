// SPDX-License-Identifier: Apache-2.0
import Foundation
import PrefsPlist
import PrefsWire
import Synchronization

/// A minimal in-memory server on a Unix socket, speaking the protocol through `PrefsWire`, so that the
/// documented Python client can be run against real framing before the daemon exists. It serves one
/// connection: `hello`, `get` and `set`; anything else gets an `unknownOperation` error.
final class FakePrefsServer: Sendable {
    /// What happened on the connection.
    struct Transcript: Sendable {
        var requests: [WireRequest] = []
        var failure: String?
    }

    let path: String
    private let listener: Int32
    private let transcript = Mutex(Transcript())
    private let finished = DispatchSemaphore(value: 0)

    init(path: String) throws {
        self.path = path
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw POSIXError(.ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(listener, 1) == 0 else {
            close(listener)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        DispatchQueue.global().async { [self] in
            serveOneConnection()
            finished.signal()
        }
    }

    /// Stops accepting (waking a pending `accept`), waits for the connection to end, and returns the transcript.
    func stop() -> Transcript {
        shutdown(listener, Int32(SHUT_RDWR))
        finished.wait()
        close(listener)
        return transcript.withLock { $0 }
    }

    private func record(_ failure: String) {
        transcript.withLock { $0.failure = $0.failure ?? failure }
    }

    private func serveOneConnection() {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return record("accept failed: errno \(errno)") }
        defer { close(connection) }
        var decoder = WireFrameDecoder()
        var values: PlistDictionary = [:]
        var version: UInt64 = 0
        var chunk = [UInt8](repeating: 0, count: 4096)
        do {
            while true {
                let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                try chunk[0..<count].withUnsafeBytes { try decoder.append($0) }
                while let frame = try decoder.nextFrame() {
                    let reply: WireReply
                    do throws(WireRequest.Rejection) {
                        let request = try WireRequest(dictionary: frame)
                        transcript.withLock { $0.requests.append(request) }
                        reply = WireReply(id: request.id, Self.perform(request.operation, &values, &version))
                    } catch {
                        guard let answer = error.reply else { return record("unanswerable request: \(error.error)") }
                        record("rejected request: \(error.error)")
                        reply = answer
                    }
                    try write(WireFrame.encode(reply.dictionary), to: connection)
                }
            }
            try decoder.finish()
        } catch {
            record("\(error)")
        }
    }

    private static func perform(
        _ operation: WireOperation, _ values: inout PlistDictionary, _ version: inout UInt64
    ) -> Result<WireResult, WireError> {
        switch operation {
        case .hello(let hello):
            return Result { () throws(WireError) in
                .hello(WireHelloResult(version: try hello.negotiatedVersion(), server: "fake", limits: .default))
            }
        case .set(let domain, let key, let value, _):
            values["\(domain.name)/\(key)"] = value
            version += 1
            return .success(.set(version: version))
        case .get(let domain, let key):
            return .success(.get(value: values["\(domain.name)/\(key)"], version: version))
        default:
            return .failure(WireError(.unknownOperation, "the fake server does not do \(operation.name.rawValue)"))
        }
    }

    private func write(_ bytes: [UInt8], to connection: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(connection, $0.baseAddress, $0.count) }
            guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            offset += written
        }
    }
}
