// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

/// A failure talking to etcd or a refusal by it, with a message naming the endpoint, key or revision concerned.
package struct EtcdError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure.
    package enum Code: String, Sendable {
        /// A setting or argument is malformed (an endpoint, a key, a prefix).
        case invalidArgument
        /// No endpoint could be reached, or a connection broke.
        case unavailable
        /// etcd answered with an error (HTTP status other than 200, or an error object).
        case refused
        /// etcd's answer could not be understood.
        case malformedResponse
        /// The watch's start revision was compacted away; a full read is needed.
        case compacted
        /// A transaction's compare failed: someone else changed the key first.
        case conflict
        /// The operation took longer than its deadline.
        case timedOut
        /// etcd refused the user name or password (`/v3/auth/authenticate`).
        case authenticationFailed
        /// etcd wants a valid token: none was sent while authentication is enabled, or it expired.
        case unauthenticated
        /// The user's roles do not allow the operation on the key (etcd's "permission denied").
        case permissionDenied
        /// The TLS handshake or session failed: the server's certificate was not verified, or the server refused
        /// ours.
        case tlsFailed
    }

    /// What kind of failure.
    package var code: Code
    /// One sentence, naming what failed.
    package var message: String
    /// For ``Code/compacted``: the oldest revision etcd still has.
    package var compactRevision: Int64?

    package init(_ code: Code, _ message: String, compactRevision: Int64? = nil) {
        self.code = code
        self.message = message
        self.compactRevision = compactRevision
    }

    /// The message.
    package var description: String { message }
}

extension EtcdError.Code {
    /// The code of one of etcd's authentication errors, from its message (the gateway's `message`, or a watch's
    /// `cancel_reason`); `nil` for any other message.
    package init?(authenticationMessage message: String) {
        if message.containsText("permission denied") {
            self = .permissionDenied
        } else if message.containsText("invalid auth token") || message.containsText("user name is empty")
            || message.containsText("Unauthenticated")
        {
            self = .unauthenticated
        } else if message.containsText("authentication failed") {
            self = .authenticationFailed
        } else {
            return nil
        }
    }
}
