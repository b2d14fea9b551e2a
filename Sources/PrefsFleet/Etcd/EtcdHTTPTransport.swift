// SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOHTTP1
import NIOPosix
import PrefsPlist

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP/1.1 to etcd's JSON gateway on SwiftNIO: one connection per request, `POST` with a JSON body, and for a watch
/// a streaming response read one JSON object at a time.
///
/// One connection per unary request keeps the transport simple and stateless (a broken member costs nothing to
/// forget); the watch, the only hot path, is one long-lived connection. For an `https://` endpoint ``connect(to:)``
/// puts a ``TLSClientHandler`` first in the pipeline (docs/FLEET.md, "Transport").
struct EtcdHTTPTransport: Sendable {
    /// The TLS context for `https://` endpoints; `nil` for the system's CA certificates and no client certificate.
    var tls: EtcdTLSContext?
    /// How long a connection may take to open.
    var connectTimeout: TimeAmount = .seconds(2)
    /// The largest response body read whole (range reads of every managed domain): etcd's own request limit is
    /// 1.5 MiB per value, and a range may return many.
    var maxResponseBytes = 256 << 20

    typealias Connection = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

    /// TCP keepalive on every connection, for the watch above all: a member partitioned away (a pulled cable, a
    /// failed switch) leaves the connection open and silent, and without probes a host would never notice. After
    /// 10 s of silence a probe goes out every 3 s, and three unanswered ones break the connection: the watch then
    /// fails, the host reports itself offline and tries the next endpoint (docs/FLEET.md, "Failure behaviour").
    static let keepalive = (idleSeconds: 10, intervalSeconds: 3, probes: 3)

    /// Sends one request and returns the whole response body.
    /// - Throws: ``EtcdError``: `unavailable` when the endpoint cannot be reached or the connection breaks,
    ///   `refused` for an HTTP status other than 200 (with etcd's message), `timedOut` past `timeout`.
    func post(
        _ path: String, body: [UInt8], to endpoint: EtcdEndpoint, authorization: String? = nil, timeout: Duration
    ) async throws(EtcdError) -> [UInt8] {
        do {
            return try await withThrowingTaskGroup(of: [UInt8].self) { group in
                group.addTask {
                    try await self.exchange(path, body: body, endpoint: endpoint, authorization: authorization)
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw EtcdError(.timedOut, "etcd at \(endpoint) did not answer \(path) within \(timeout)")
                }
                defer { group.cancelAll() }
                guard let result = try await group.next() else {
                    throw EtcdError(.unavailable, "no answer from etcd at \(endpoint)")
                }
                return result
            }
        } catch let error as EtcdError {
            throw error
        } catch {
            throw EtcdError(.unavailable, "cannot reach etcd at \(endpoint) for \(path): \(error)")
        }
    }

    /// Sends one request and hands each JSON object of the streaming response to `handle`, until the server ends
    /// the response, the connection breaks, `handle` throws, or the task is cancelled.
    ///
    /// `handle` runs on the connection's event loop, as each chunk arrives: a watch's event reaches prefsd's store
    /// without waking another thread first (with fifty hosts on two cores, every wake waits its turn). It must not
    /// block.
    /// - Throws: ``EtcdError`` (`unavailable` when the stream ends or breaks), or what `handle` throws.
    func stream(
        _ path: String, body: [UInt8], to endpoint: EtcdEndpoint, authorization: String? = nil,
        handle: @escaping @Sendable ([UInt8]) throws -> Void
    ) async throws {
        let connection: Connection
        do {
            connection = try await connect(to: endpoint, objects: handle)
        } catch {
            throw EtcdError(.unavailable, "cannot connect to etcd at \(endpoint): \(error)")
        }
        try await connection.executeThenClose { inbound, outbound in
            try await send(path, body: body, endpoint: endpoint, authorization: authorization, outbound, inbound)
            // Only the head, the body of a refusal and the end come this way: a 200 body goes to `handle`.
            var status: HTTPResponseStatus = .ok
            var errorBody: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let head):
                    status = head.status
                case .body(var buffer):
                    errorBody += (buffer.readBytes(length: buffer.readableBytes) ?? []).prefix(4096 - errorBody.count)
                case .end:
                    if status != .ok { throw Self.refusal(status, errorBody, path: path, endpoint: endpoint) }
                    throw EtcdError(.unavailable, "etcd at \(endpoint) ended the \(path) stream")
                }
            }
            throw EtcdError(.unavailable, "the connection to etcd at \(endpoint) closed")
        }
    }

    private func exchange(
        _ path: String, body: [UInt8], endpoint: EtcdEndpoint, authorization: String?
    ) async throws -> [UInt8] {
        let connection = try await connect(to: endpoint)
        do {
            return try await exchange(path, body: body, endpoint: endpoint, authorization: authorization, connection)
        } catch let error as EtcdError {
            throw error
        } catch {
            throw EtcdError(
                .unavailable,
                "the connection to etcd at \(endpoint) broke before it answered \(path): \(error)"
                    + Self.plainHint(endpoint))
        }
    }

    private func exchange(
        _ path: String, body: [UInt8], endpoint: EtcdEndpoint, authorization: String?, _ connection: Connection
    ) async throws -> [UInt8] {
        try await connection.executeThenClose { inbound, outbound in
            try await send(path, body: body, endpoint: endpoint, authorization: authorization, outbound, inbound)
            var status: HTTPResponseStatus = .ok
            var response: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let head):
                    status = head.status
                case .body(var buffer):
                    guard response.count + buffer.readableBytes <= maxResponseBytes else {
                        throw EtcdError(
                            .malformedResponse,
                            "etcd's answer to \(path) from \(endpoint) exceeds \(maxResponseBytes) bytes")
                    }
                    response += buffer.readBytes(length: buffer.readableBytes) ?? []
                case .end:
                    guard status == .ok else { throw Self.refusal(status, response, path: path, endpoint: endpoint) }
                    return response
                }
            }
            throw EtcdError(
                .unavailable,
                "etcd at \(endpoint) closed the connection before answering \(path)" + Self.plainHint(endpoint))
        }
    }

    /// A member serving TLS closes or resets a plain HTTP connection without a word: the likely mistake, named.
    private static func plainHint(_ endpoint: EtcdEndpoint) -> String {
        endpoint.isSecure ? "" : " (if the member serves TLS, its endpoint is https://)"
    }

    /// Opens a connection; with `objects`, the JSON objects of a 200 response's body go to it on the event loop
    /// (``StreamObjectHandler``) instead of the async stream.
    private func connect(
        to endpoint: EtcdEndpoint, objects: (@Sendable ([UInt8]) throws -> Void)? = nil
    ) async throws -> Connection {
        let tls = endpoint.isSecure ? try self.tls ?? EtcdTLSContext.systemDefault.get() : nil
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .keepingAlive(Self.keepalive)
            .connect(host: endpoint.host, port: endpoint.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(TLSClientHandler(tls: tls, endpoint: endpoint))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    if let objects {
                        try channel.pipeline.syncOperations.addHandler(StreamObjectHandler(handle: objects))
                    }
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// Sends the request. When the connection closes before it is sent, the error is the one the pipeline raised
    /// (a TLS failure says why the handshake failed), if any, rather than the write's "I/O on closed channel".
    private func send(
        _ path: String, body: [UInt8], endpoint: EtcdEndpoint, authorization: String?,
        _ outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>,
        _ inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>
    ) async throws {
        do {
            try await write(path, body: body, endpoint: endpoint, authorization: authorization, outbound)
        } catch {
            for try await _ in inbound {}
            throw error
        }
    }

    private func write(
        _ path: String, body: [UInt8], endpoint: EtcdEndpoint, authorization: String?,
        _ outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    ) async throws {
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: path)
        head.headers.add(name: "Host", value: "\(endpoint.host):\(endpoint.port)")
        // The gateway hands this header to etcd as the token (etcd's documented `Authorization: <token>`).
        if let authorization { head.headers.add(name: "Authorization", value: authorization) }
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Length", value: "\(body.count)")
        try await outbound.write(.head(head))
        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
        try await outbound.write(.end(nil))
    }

    /// The error for a non-200 answer, with etcd's own message (`{"error": …, "message": …, "code": gRPC code}`)
    /// when it has one; the authentication failures get codes of their own.
    private static func refusal(
        _ status: HTTPResponseStatus, _ body: [UInt8], path: String, endpoint: EtcdEndpoint
    ) -> EtcdError {
        var message = String(decoding: body.prefix(512), as: UTF8.self)
        if let object = try? EtcdJSON.decode(body, what: path), case .string(let text)? = object["message"] {
            message = text
        }
        if message.containsText("CommonName of client sending a request against gateway") {
            // etcd 3.4's gateway refuses every request that presents a certificate with a Common Name once
            // authentication is on (the gateway cannot pass the name on as the user gRPC would take it for).
            return EtcdError(
                .refused,
                "etcd at \(endpoint) refused \(path): its JSON gateway takes no client certificate with a Common Name "
                    + "while authentication is enabled (HTTP \(status.code): \(message)); give the fleet client "
                    + "certificates without a Common Name, naming the host in subjectAltName (docs/FLEET.md, "
                    + "\"TLS with authentication\")")
        }
        let code = EtcdError.Code(authenticationMessage: message) ?? .refused
        return EtcdError(code, "etcd at \(endpoint) refused \(path): HTTP \(status.code): \(message)")
    }
}

/// Cuts a byte stream of concatenated JSON objects (etcd's streaming responses, one object per event batch, with or
/// without newlines between them) into one object each, whatever the chunk boundaries.
struct JSONObjectSplitter {
    /// The largest object accepted: a watch batch holds values of at most etcd's request limit each.
    var maxObjectBytes = 64 << 20
    private var pending: [UInt8] = []
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var scanned = 0

    /// Adds bytes and returns the objects they complete.
    mutating func append(_ bytes: [UInt8]) throws(EtcdError) -> [[UInt8]] {
        var objects: [[UInt8]] = []
        pending += bytes
        var start = 0
        var index = scanned
        while index < pending.count {
            let byte = pending[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "{") {
                if depth == 0 { start = index }
                depth += 1
            } else if byte == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 {
                    objects.append(Array(pending[start...index]))
                    start = index + 1
                } else if depth < 0 {
                    throw EtcdError(.malformedResponse, "etcd's stream has an unbalanced }")
                }
            } else if depth == 0 {
                start = index + 1  // Whitespace between objects.
            }
            index += 1
        }
        pending.removeFirst(start)
        scanned = pending.count
        if pending.count > maxObjectBytes {
            throw EtcdError(.malformedResponse, "etcd's stream sent an object larger than \(maxObjectBytes) bytes")
        }
        return objects
    }
}

extension ClientBootstrap {
    /// Turns on TCP keepalive with these timings.
    fileprivate func keepingAlive(_ timing: (idleSeconds: Int, intervalSeconds: Int, probes: Int)) -> ClientBootstrap {
        func tcp(_ name: Int32) -> ChannelOptions.Types.SocketOption {
            ChannelOptions.Types.SocketOption(level: .tcp, name: NIOBSDSocket.Option(rawValue: name))
        }
        return self.channelOption(.socketOption(.so_keepalive), value: 1)
            .channelOption(tcp(TCP_KEEPIDLE), value: SocketOptionValue(timing.idleSeconds))
            .channelOption(tcp(TCP_KEEPINTVL), value: SocketOptionValue(timing.intervalSeconds))
            .channelOption(tcp(TCP_KEEPCNT), value: SocketOptionValue(timing.probes))
    }
}
