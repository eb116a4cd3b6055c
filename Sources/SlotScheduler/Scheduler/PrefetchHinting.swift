internal import CPrefetch

/// A value behind a ``LockedCells`` lock that names an address worth asking the CPU for before
/// the lock is taken, so that the cache miss overlaps the wait for the lock and the work done
/// before the value is read. A value that names none conforms with the defaults: a shard's
/// slot needs its day's block as well, which ``SlotHints`` publishes.
protocol PrefetchHinting {
    /// Whether ``prefetchHint`` can be other than 0; if not, nothing is published.
    static var hasPrefetchHint: Bool { get }
    /// The address (0 for none). Read under the lock; ``LockedCells`` publishes it after each use.
    var prefetchHint: UInt { get }
}

extension PrefetchHinting {
    static var hasPrefetchHint: Bool { false }
    var prefetchHint: UInt { 0 }
}

extension SlotBook: PrefetchHinting {}

extension UserBook: PrefetchHinting {
    static var hasPrefetchHint: Bool { true }

    /// The first user state: a direct id's state is at a fixed index from it.
    var prefetchHint: UInt {
        states.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }
}

extension Scheduler {
    /// Asks the CPU for `user`'s state in `stripe` when the id is direct (a hashed id's index
    /// needs its stripe's table), without the stripe's lock and without waiting; changes nothing.
    @inline(__always)
    func prefetchState(of user: UserID, stripe: Int) {
        guard user.rawValue < directLimit else { return }
        let first = stripes.hint(stripe)
        guard first != 0 else { return }
        let index = UInt(truncatingIfNeeded: user.rawValue >> directShift)
        slot_scheduler_prefetch(
            UnsafeRawPointer(bitPattern: first &+ index &* UInt(MemoryLayout<UserBook.UserState>.stride)))
    }
}
