// SPDX-License-Identifier: Apache-2.0
import Logging
import NIOCore
import PrefsPOSIX
import PrefsStore

/// The handlers that serve one accepted connection, in the order its bytes pass them:
///
/// 1. the frame decoder (``WireFrameChannelDecoder``): whole frames, each within the limits and the frame timeout;
/// 2. NIO's `IdleStateHandler`, when there is an idle timeout: it tells when the peer sent nothing for that long;
/// 3. the ``HelloGateHandler``, until a `hello` negotiates the version;
/// 4. the ``RequestHandler``: requests in order, replies gathered, closing;
/// 5. the ``SubscriptionHandler``: subscriptions and their events.
///
/// The server assembles every connection with it, and the tests assemble an `EmbeddedChannel` the same way.
enum ConnectionPipeline {
    /// Adds the handlers to a new connection's pipeline.
    /// - Parameters:
    ///   - pipeline: The channel's pipeline, on its event loop.
    ///   - shared: What every connection of the daemon shares.
    ///   - policy: The limits and timeouts when the connection was accepted.
    ///   - activity: The record of the connection's progress the server keeps.
    ///   - credentials: The peer's, from `SO_PEERCRED`: the origin of its changes and its log metadata.
    static func addHandlers(
        to pipeline: ChannelPipeline.SynchronousOperations, shared: DaemonShared, policy: ConnectionPolicy,
        activity: ConnectionActivity, credentials: PeerCredentials
    ) throws {
        var logger = shared.logger
        logger[metadataKey: "prefs.client.pid"] = "\(credentials.processID)"
        logger[metadataKey: "prefs.client.uid"] = "\(credentials.userID)"
        try pipeline.addHandler(
            ByteToMessageHandler(
                WireFrameChannelDecoder(
                    limits: policy.limits, budget: shared.frameBudget, frameTimeout: policy.frameTimeout,
                    activity: activity)))
        if let timeout = policy.idleTimeout {
            try pipeline.addHandler(IdleStateHandler(readTimeout: .nanoseconds(timeout.nanoseconds)))
        }
        try pipeline.addHandler(HelloGateHandler(limits: policy.limits, serverName: shared.serverName, logger: logger))
        try pipeline.addHandler(
            RequestHandler(
                shared: shared, policy: policy, activity: activity,
                origin: .client(pid: credentials.processID, uid: credentials.userID), logger: logger))
        try pipeline.addHandler(
            SubscriptionHandler(shared: shared, limits: policy.limits, activity: activity, logger: logger))
    }
}
