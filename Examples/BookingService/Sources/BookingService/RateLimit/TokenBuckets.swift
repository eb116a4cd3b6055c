import Synchronization

/// A rate (tokens a second) and a burst (the most tokens a bucket holds); a rate of 0 turns the
/// limit off.
struct RateLimit: Sendable, Equatable {
    var rate: Double
    var burst: Double

    static let off = RateLimit(rate: 0, burst: 0)
    var isOff: Bool { rate <= 0 }
}

/// Token buckets, one per key (a client address, a user): each holds up to `burst` tokens,
/// refills at `rate` tokens a second, and a request takes one.
///
/// Memory grows with the clients active, not with every client ever seen: buckets that have
/// refilled to full are forgotten (a forgotten bucket and a full one answer alike) in a sweep
/// that runs when the table has doubled since the last one, so each request pays O(1) amortized.
final class TokenBuckets<Key: Hashable & Sendable>: Sendable {
    let limit: RateLimit
    private let state = Mutex(State())

    private struct State {
        var buckets: [Key: Bucket] = [:]
        var sweepAt = 1_024
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    init(_ limit: RateLimit) {
        self.limit = limit
    }

    /// Takes a token of `key`'s bucket at `now`: `nil` when one was there, else how long until
    /// one will be.
    func take(_ key: Key, at now: ContinuousClock.Instant) -> Duration? {
        guard !limit.isOff else { return nil }
        return state.withLock { state in
            var bucket = state.buckets[key] ?? Bucket(tokens: limit.burst, updated: now)
            bucket.tokens = min(limit.burst, bucket.tokens + limit.rate * Self.seconds(now - bucket.updated))
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                state.buckets[key] = bucket
                return .seconds((1 - bucket.tokens) / limit.rate)
            }
            bucket.tokens -= 1
            state.buckets[key] = bucket
            if state.buckets.count >= state.sweepAt { sweep(&state, at: now) }
            return nil
        }
    }

    /// The number of buckets kept (for tests).
    var count: Int { state.withLock { $0.buckets.count } }

    private func sweep(_ state: inout State, at now: ContinuousClock.Instant) {
        let fullAfter = limit.burst / limit.rate
        state.buckets = state.buckets.filter { Self.seconds(now - $0.value.updated) < fullAfter }
        state.sweepAt = max(1_024, state.buckets.count * 2)
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
