import NIOCore
import NIOPosix
import PrefsWire

/// One connection to the daemon, after a successful `hello`.
final class ClientConnection: Sendable {
    let channel: any Channel
    /// What the daemon answered to `hello`.
    let hello: WireHelloResult

    private init(channel: any Channel, hello: WireHelloResult) {
        self.channel = channel
        self.hello = hello
    }

    /// Whether the connection can still carry requests.
    var isActive: Bool { channel.isActive }

    /// Connects and says hello.
    static func open(_ configuration: PrefsClientConfiguration) async throws(PrefsClientError) -> ClientConnection {
        let path = configuration.socketPath
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.nanoseconds(Int64(configuration.connectTimeout.nanoseconds)))
                .channelOption(ChannelOptions.allowRemoteHalfClosure, value: false)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(ClientFrameDecoder(limits: ClientConnection.readLimits)))
                        try channel.pipeline.syncOperations.addHandler(
                            ClientChannelHandler(maxFrameBytes: WireLimits.default.maxFrameBytes))
                    }
                }
                .connect(unixDomainSocketPath: path).get()
        } catch {
            throw PrefsClientError(
                .daemonUnavailable, "prefsd does not answer on \(path)", cause: error)
        }
        let connection = ClientConnection(
            channel: channel, hello: WireHelloResult(version: 1, server: "", limits: .default))
        let result: WireResult
        do {
            result = try await connection.request(
                .hello(WireHello(client: configuration.clientName)), timeout: configuration.connectTimeout)
        } catch {
            channel.close(promise: nil)
            throw error
        }
        guard case .hello(let hello) = result else {
            channel.close(promise: nil)
            throw PrefsClientError(.protocolViolation, "prefsd answered hello with a \(result.operation) result")
        }
        return ClientConnection(channel: channel, hello: hello)
    }

    /// The limits for frames from the daemon: as large as its default frames, nested as the protocol allows.
    static let readLimits = WireLimits.default

    /// Sends one request and waits for its reply.
    /// - Throws: ``PrefsClientError``: `refused` with the daemon's error, `connectionLost`, `timedOut` (the
    ///   connection is then closed, since later replies could no longer be matched).
    func request(
        _ operation: WireOperation, sink: SubscriptionSink? = nil, isRenewal: Bool = false, timeout: Duration?
    ) async throws(PrefsClientError) -> WireResult {
        let promise = channel.eventLoop.makePromise(of: Result<WireResult, WireError>.self)
        let timer = timeout.map { timeout in
            channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout.nanoseconds))) { [channel] in
                promise.fail(PrefsClientError(.timedOut, "prefsd did not answer \(operation.name) within \(timeout)"))
                channel.close(promise: nil)
            }
        }
        channel.writeAndFlush(ClientRequest(operation: operation, promise: promise, sink: sink, isRenewal: isRenewal))
            .whenFailure { error in
                promise.fail(
                    (error as? PrefsClientError)
                        ?? PrefsClientError(.connectionLost, "cannot send \(operation.name) to prefsd", cause: error))
            }
        let outcome: Result<WireResult, WireError>
        do {
            outcome = try await promise.futureResult.get()
        } catch let error as PrefsClientError {
            timer?.cancel()
            throw error
        } catch {
            timer?.cancel()
            throw PrefsClientError(.connectionLost, "the connection to prefsd failed", cause: error)
        }
        timer?.cancel()
        switch outcome {
        case .success(let result): return result
        case .failure(let error): throw PrefsClientError.refused(error)
        }
    }

    func close() async {
        try? await channel.close()
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
