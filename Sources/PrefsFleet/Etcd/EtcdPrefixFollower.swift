// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Follows every key under a prefix for as long as its task runs: one read of the whole prefix, then a watch from
/// the revision after it; when the watch's member fails, the next member, after a pause that doubles up to a limit
/// and starts again once a watch was established; when etcd has compacted past the revision, the whole prefix is
/// read again. What the fleet's policy and the roaming domains have in common.
///
/// The caller says what each round connects with (``Round``, asked for before every connection, so that settings
/// reloaded meanwhile take effect), applies what arrives, and may run tasks beside each watch (a liveness check, a
/// wait for a reload): when one of them throws, the watch ends like a failed one, or at once with ``Restart``.
package struct EtcdPrefixFollower: Sendable {
    /// What the next connection uses.
    package struct Round: Sendable {
        /// The client, whose current endpoint serves the watch.
        package var client: EtcdClient
        /// The prefix followed.
        package var prefix: String
        /// Whether to read the whole prefix again first, as after a change of what the prefix holds for the caller.
        package var readsAgain: Bool
        /// Whether the pauses start again from the shortest, as after new settings that may be what was missing.
        package var resetsPause: Bool

        /// Creates a round.
        package init(client: EtcdClient, prefix: String, readsAgain: Bool = false, resetsPause: Bool = false) {
            self.client = client
            self.prefix = prefix
            self.readsAgain = readsAgain
            self.resetsPause = resetsPause
        }
    }

    /// What arrived: the whole prefix read, or a message of the watch.
    package enum Update: Sendable {
        /// Every key under the prefix at a revision.
        case snapshot(EtcdClient.RangeResult)
        /// A message of the watch.
        case watch(EtcdWatchMessage)
    }

    /// Thrown by a task beside the watch to end the round and start the next one at once, without a pause and on
    /// the same endpoint (settings were reloaded, say).
    package struct Restart: Error {
        /// Creates the error.
        package init() {}
    }

    /// The shortest and the longest pause between two connections.
    package let backoff: (first: Duration, last: Duration)

    /// Creates a follower with its pauses between connections.
    package init(backoff: (first: Duration, last: Duration)) {
        self.backoff = backoff
    }

    /// Follows until cancelled.
    /// - Parameters:
    ///   - revision: The revision already applied, to watch from the one after; `nil` to read the prefix first.
    ///   - round: What the next connection uses, asked before each one.
    ///   - apply: Applies what arrived, on the watch's event loop (it must not block); throwing ends the watch.
    ///   - beside: Runs beside each watch on its endpoint, if given; throwing ends the watch.
    ///   - lost: Told when a round failed (not when it was compacted, restarted or cancelled), with its endpoint.
    ///   - compacted: Told when etcd no longer holds the revision after `revision`; the prefix is read again.
    ///   - pause: Waits the pause between two connections (a caller may end it early).
    package func follow(
        from revision: Int64?,
        round: () -> Round,
        apply: @escaping @Sendable (Update, EtcdEndpoint) throws -> Void,
        beside: (@Sendable (EtcdClient, EtcdEndpoint) async throws -> Void)? = nil,
        lost: (any Error, EtcdEndpoint) -> Void,
        compacted: (EtcdError) -> Void,
        pause: (Duration) async -> Void
    ) async {
        var applied = revision
        var wait = backoff.first
        var restarted = false
        while !Task.isCancelled {
            let current = round()
            if restarted || current.readsAgain || current.resetsPause { wait = backoff.first }
            if current.readsAgain { applied = nil }
            restarted = false
            let endpoint = current.client.currentEndpoint
            let progress = Progress(applied)
            do {
                if progress.revision == nil {
                    let result = try await current.client.range(prefix: current.prefix)
                    try apply(.snapshot(result), endpoint)
                    progress.reached(result.revision)
                    wait = backoff.first
                }
                let start = (progress.revision ?? 0) + 1
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { [current] in
                        try await current.client.watch(prefix: current.prefix, startRevision: start, endpoint: endpoint)
                        { message in
                            try apply(.watch(message), endpoint)
                            switch message {
                            case .created: progress.established()
                            case .events(_, let revision): progress.reached(revision)
                            case .progress: break
                            }
                        }
                    }
                    if let beside { group.addTask { [current] in try await beside(current.client, endpoint) } }
                    try await group.next()
                    group.cancelAll()
                }
            } catch is Restart {
                applied = progress.revision
                restarted = true
                continue
            } catch let error as EtcdError where error.code == .compacted {
                compacted(error)
                applied = nil
                continue
            } catch {
                if Task.isCancelled { return }
                lost(error, endpoint)
            }
            applied = progress.revision
            if progress.wasEstablished { wait = backoff.first }
            current.client.advanceEndpoint()
            await pause(wait)
            wait = min(wait * 2, backoff.last)
        }
    }

    /// How far one round got, written by the watch's handler and read once the round is over.
    private final class Progress: Sendable {
        private let state: Mutex<(revision: Int64?, established: Bool)>

        init(_ revision: Int64?) { state = Mutex((revision, false)) }

        var revision: Int64? { state.withLock { $0.revision } }
        var wasEstablished: Bool { state.withLock { $0.established } }
        func reached(_ revision: Int64) { state.withLock { $0.revision = revision } }
        func established() { state.withLock { $0.established = true } }
    }
}
