// SPDX-License-Identifier: Apache-2.0
import NIOCore
import NIOHTTP1

/// Hands each JSON object of a streaming 200 response (etcd's watch) to a closure on the event loop, as the chunks
/// arrive; the response's head and end, and the body of any other status, go on down the pipeline.
///
/// When the closure throws, the error goes down the pipeline (the task reading the stream throws it) and the
/// connection is closed.
final class StreamObjectHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    private let handle: @Sendable ([UInt8]) throws -> Void
    private var splitter = JSONObjectSplitter()
    private var isStreaming = false
    private var failed = false

    init(handle: @escaping @Sendable ([UInt8]) throws -> Void) {
        self.handle = handle
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            isStreaming = head.status == .ok
            context.fireChannelRead(data)
        case .body(var buffer):
            guard isStreaming else {
                context.fireChannelRead(data)
                return
            }
            guard !failed else { return }
            do {
                for object in try splitter.append(buffer.readBytes(length: buffer.readableBytes) ?? []) {
                    try handle(object)
                }
            } catch {
                failed = true
                context.fireErrorCaught(error)
                context.close(promise: nil)
            }
        case .end:
            context.fireChannelRead(data)
        }
    }
}

@available(*, unavailable)
extension StreamObjectHandler: Sendable {}
