// SPDX-License-Identifier: Apache-2.0
import Glibc
import NIOCore
import PrefsPlist

/// TLS for one connection to an etcd member, first in the channel's pipeline: ciphertext below it, plaintext above.
/// OpenSSL runs the protocol over memory BIOs (``OpenSSL/Connection``) and SwiftNIO keeps the socket.
///
/// The handshake starts when the channel becomes active; writes made before it completes wait and go out, encrypted,
/// once it has. Closing the channel sends `close_notify` first. A failure is raised as an ``EtcdError`` naming the
/// endpoint (code `tlsFailed`; `unavailable` for a connection that closed or stalled during the handshake, which
/// another member may not do) and closes the channel.
final class TLSClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = ByteBuffer

    /// How long the handshake may take; the watch has no request deadline of its own to bound it.
    static let handshakeTimeout: TimeAmount = .seconds(10)
    /// The plaintext read at a time: one TLS record's worth.
    private static let readSize = 16 << 10

    private enum State {
        case idle
        case handshaking
        case open
        case closed
    }

    private let tls: EtcdTLSContext
    private let endpoint: EtcdEndpoint
    private var state = State.idle
    private var connection: OpenSSL.Connection?
    /// Writes made before the handshake completed, in order.
    private var waitingWrites: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    private var flushWaiting = false
    /// Whether any plaintext arrived: an alert before that is the server refusing the handshake (with TLS 1.3 the
    /// server checks the client's certificate after the client has finished its part).
    private var heardPlaintext = false
    private var handshakeDeadline: Scheduled<Void>?

    init(tls: EtcdTLSContext, endpoint: EtcdEndpoint) {
        self.tls = tls
        self.endpoint = endpoint
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startHandshake(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        startHandshake(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if state == .idle || state == .handshaking {
            // etcd's plain client port closes a TLS connection so.
            fail(context, closedDuringHandshake(how: ""))
        }
        state = .closed
        failWaitingWrites(ChannelError.ioOnClosedChannel)
        handshakeDeadline?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let connection, state == .handshaking || state == .open else { return }
        let ciphertext = unwrapInboundIn(data)
        ciphertext.withUnsafeReadableBytes { connection.feed($0) }
        if state == .handshaking {
            continueHandshake(context: context)
            guard state == .open else { return }
        }
        readPlaintext(context: context, connection)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .byteBuffer(let plaintext) = unwrapOutboundIn(data) else {
            promise?.fail(EtcdError(.tlsFailed, "a file region cannot be sent over TLS to etcd at \(endpoint)"))
            return
        }
        switch state {
        case .idle, .handshaking: waitingWrites.append((plaintext, promise))
        case .open: encrypt(context: context, plaintext, promise: promise)
        case .closed: promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }

    func flush(context: ChannelHandlerContext) {
        if state == .open {
            context.flush()
        } else {
            flushWaiting = true
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode != .input, state == .open, let connection {
            connection.shutdown()  // close_notify: the server knows the end of the session from a truncation.
            sendOutput(context: context, flush: true)
        }
        if mode == .all {
            state = .closed
            failWaitingWrites(ChannelError.ioOnClosedChannel)
        }
        context.close(mode: mode, promise: promise)
    }

    // MARK: Handshake

    private func startHandshake(context: ChannelHandlerContext) {
        guard state == .idle else { return }
        do {
            connection = try OpenSSL.Connection(context: tls.context, host: endpoint.host)
        } catch {
            fail(context, error)
            return
        }
        state = .handshaking
        handshakeDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: Self.handshakeTimeout) {
            guard self.state == .handshaking else { return }
            self.fail(
                context,
                EtcdError(
                    .unavailable,
                    "etcd at \(self.endpoint) did not complete the TLS handshake within \(Self.handshakeTimeout)"))
        }
        continueHandshake(context: context)
    }

    private func continueHandshake(context: ChannelHandlerContext) {
        guard let connection else { return }
        switch connection.handshake() {
        case .wantsMore:
            sendOutput(context: context, flush: true)
        case .done:
            state = .open
            handshakeDeadline?.cancel()
            sendOutput(context: context, flush: false)
            let writes = waitingWrites
            waitingWrites = []
            for (plaintext, promise) in writes { encrypt(context: context, plaintext, promise: promise) }
            if flushWaiting || !writes.isEmpty { context.flush() }
            flushWaiting = false
        case .failed(let failure):
            sendOutput(context: context, flush: true)  // The alert that tells the server why.
            fail(context, describe(failure, inHandshake: true))
        }
    }

    // MARK: Data

    private func readPlaintext(context: ChannelHandlerContext, _ connection: OpenSSL.Connection) {
        while state == .open {
            var outcome = OpenSSL.ReadOutcome.wantsMore
            var plaintext = context.channel.allocator.buffer(capacity: Self.readSize)
            plaintext.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.readSize) { buffer in
                outcome = connection.read(into: buffer)
                if case .read(let count) = outcome { return count }
                return 0
            }
            switch outcome {
            case .read:
                heardPlaintext = true
                context.fireChannelRead(wrapInboundOut(plaintext))
            case .wantsMore:
                sendOutput(context: context, flush: true)  // A reply the session needs (a key update), if any.
                return
            case .closed:
                close(context: context, mode: .all, promise: nil)
                return
            case .failed(let failure):
                fail(context, describe(failure, inHandshake: !heardPlaintext))
                return
            }
        }
    }

    private func encrypt(context: ChannelHandlerContext, _ plaintext: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard let connection else { return }
        if let failure = plaintext.withUnsafeReadableBytes({ connection.write($0) }) {
            let error = describe(failure, inHandshake: false)
            promise?.fail(error)
            fail(context, error)
            return
        }
        guard connection.pendingOutput > 0 else {
            promise?.succeed()
            return
        }
        context.write(wrapOutboundOut(takeOutput(context: context, connection)), promise: promise)
    }

    /// Writes the ciphertext OpenSSL produced (handshake messages, alerts) to the channel.
    private func sendOutput(context: ChannelHandlerContext, flush: Bool) {
        guard let connection, connection.pendingOutput > 0 else { return }
        let ciphertext = takeOutput(context: context, connection)
        if flush {
            context.writeAndFlush(wrapOutboundOut(ciphertext), promise: nil)
        } else {
            context.write(wrapOutboundOut(ciphertext), promise: nil)
        }
    }

    private func takeOutput(context: ChannelHandlerContext, _ connection: OpenSSL.Connection) -> ByteBuffer {
        let count = connection.pendingOutput
        var ciphertext = context.channel.allocator.buffer(capacity: count)
        ciphertext.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { connection.takeOutput(into: $0) }
        return ciphertext
    }

    // MARK: Failure

    /// The error for a failure, naming the endpoint: the certificate check that failed, or the server's refusal.
    private func describe(_ failure: OpenSSL.Failure, inHandshake: Bool) -> EtcdError {
        if let verifyError = failure.verifyError {
            let hint =
                switch failure.verifyKind {
                case .issuer:
                    " (no CA of the CA file, or of the system's when none is given, signed the member's certificate)"
                case .dates:
                    " (the member's certificate is outside its validity dates, or this machine's clock is wrong)"
                case .name: " (the member's certificate does not name \(endpoint.host) in its subjectAltName)"
                case .purpose:
                    " (the member's certificate is not for a TLS server: its extended key usage lacks serverAuth)"
                case .revocation:
                    " (checked against the revocation list file: its CA revoked the member's certificate, or the file "
                        + "holds no current list signed by that CA)"
                case .other: ""
                }
            return EtcdError(
                .tlsFailed,
                "the TLS handshake with etcd at \(endpoint) failed: certificate verify failed: \(verifyError)\(hint)")
        }
        if failure.alertReceived, inHandshake, failure.reason.containsText("protocol version") {
            return EtcdError(
                .tlsFailed,
                "etcd at \(endpoint) refused the TLS handshake: \(failure.reason) (the member offers no TLS version "
                    + "this client accepts: 1.2 or later)")
        }
        if failure.alertReceived, inHandshake {
            return EtcdError(
                .tlsFailed,
                "etcd at \(endpoint) refused the TLS handshake: \(failure.reason) (it may require a client "
                    + "certificate signed by its CA)")
        }
        let phase = inHandshake ? "the TLS handshake with" : "the TLS session with"
        // OpenSSL's words for a plain HTTP answer to its hello.
        let hint = failure.reason.containsText("wrong version number") ? " (the member may serve plain http://)" : ""
        return EtcdError(.tlsFailed, "\(phase) etcd at \(endpoint) failed: \(failure.reason)\(hint)")
    }

    /// Raises `error` to the handlers above and closes the channel, once.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Or resets it, when our hello was still unread there: the same mistake, named the same way.
        if state == .idle || state == .handshaking, let error = error as? IOError, error.errnoCode == ECONNRESET {
            fail(context, closedDuringHandshake(how: ", resetting it"))
            return
        }
        context.fireErrorCaught(error)
    }

    private func closedDuringHandshake(how: String) -> EtcdError {
        EtcdError(
            .unavailable,
            "etcd at \(endpoint) closed the connection during the TLS handshake\(how) (if the member serves plain "
                + "HTTP, its endpoint is http://)")
    }

    private func fail(_ context: ChannelHandlerContext, _ error: EtcdError) {
        guard state != .closed else { return }
        state = .closed
        handshakeDeadline?.cancel()
        failWaitingWrites(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func failWaitingWrites(_ error: any Error) {
        let writes = waitingWrites
        waitingWrites = []
        for (_, promise) in writes { promise?.fail(error) }
    }
}

@available(*, unavailable)
extension TLSClientHandler: Sendable {}
