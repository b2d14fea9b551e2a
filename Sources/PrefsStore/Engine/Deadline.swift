// SPDX-License-Identifier: Apache-2.0
/// A point on the continuous clock, held as the time since the process's first use of it.
///
/// `ContinuousClock.Instant` is resilient (its layout is known only at run time), so a struct holding one gets its
/// layout at run time too, and every copy and field access of it goes through value witnesses: ``DomainState``'s
/// flush deadline made each `set` check it that way. `Duration` has a fixed layout.
struct Deadline: Comparable, Sendable {
    /// Time since ``origin``.
    private let offset: Duration

    private static let origin = ContinuousClock.now

    private init(offset: Duration) {
        self.offset = offset
    }

    /// The deadline at `instant`.
    init(_ instant: ContinuousClock.Instant) {
        self.offset = instant - Self.origin
    }

    /// Now.
    static var now: Deadline { Deadline(ContinuousClock.now) }

    /// The instant of the clock.
    var instant: ContinuousClock.Instant { Self.origin + offset }

    static func + (deadline: Deadline, delay: Duration) -> Deadline {
        Deadline(offset: deadline.offset + delay)
    }

    static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.offset < rhs.offset }
}
