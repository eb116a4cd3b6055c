internal import CPrefetch

extension Ledger {
    /// How many attempts of a batch have their memory prefetched together.
    static let batchWindow = 32

    /// Makes independent reservation attempts one after another, with the same rules and the
    /// same results as calling ``attempt(_:for:at:)`` once per element, in order.
    ///
    /// Faster on large ledgers: before deciding a window of attempts it asks the CPU to prefetch
    /// every one's availability word, occupancy cell and user state, so their cache misses
    /// overlap instead of following one another (user states only for ids below
    /// `expectedUsers`: finding a hashed id would have to wait for the table). A server that
    /// gathers incoming requests for a few microseconds can use it.
    /// - Returns: one result per attempt, in order.
    /// - Complexity: O(*n*) in the batch, as ``attempt(_:for:at:)`` per element.
    public mutating func attempt(_ batch: ArraySlice<(SlotRef, UserID)>, at now: Instant) -> [ReservationAttempt] {
        var results: [ReservationAttempt] = []
        results.reserveCapacity(batch.count)
        var window = batch.startIndex
        while window < batch.endIndex {
            let end = min(window + Self.batchWindow, batch.endIndex)
            prefetch(batch[window..<end])
            for i in window..<end { results.append(attempt(batch[i].0, for: batch[i].1, at: now)) }
            window = end
        }
        return results
    }

    /// ``attempt(_:at:)-(ArraySlice<(SlotRef,UserID)>,_)`` on a whole array.
    public mutating func attempt(_ batch: [(SlotRef, UserID)], at now: Instant) -> [ReservationAttempt] {
        attempt(batch[...], at: now)
    }

    /// Asks the CPU for the availability words, occupancy cells and user states the attempts
    /// will read and write, without waiting for them; changes nothing.
    private func prefetch(_ attempts: ArraySlice<(SlotRef, UserID)>) {
        let regularCount = slots.regular.count
        slots.words.withUnsafeBufferPointer { words in
            users.states.withUnsafeBufferPointer { states in
                guard let words = words.baseAddress, let states = states.baseAddress else { return }
                for (ref, user) in attempts {
                    let socket = Int(slots.localSocket[Int(ref.socket)])
                    if socket >= 0, let block = slots.existingBlock(ref.day) {
                        slot_scheduler_prefetch(words + (block &* regularCount &+ socket))
                        slots.cells[block].withUnsafeBufferPointer { cells in
                            if let cells = cells.baseAddress {
                                slot_scheduler_prefetch(cells + (socket &* 24 &+ Int(ref.hour)))
                            }
                        }
                    }
                    if user.rawValue < users.directLimit {
                        slot_scheduler_prefetch(states + Int(truncatingIfNeeded: user.rawValue >> users.idShift))
                    }
                }
            }
        }
    }
}
