internal import CPrefetch

extension SlotBook {
    /// Asks the CPU for the availability word and occupancy cell of `ref` (when its day has a
    /// block), without waiting for them; changes nothing.
    @inline(__always)
    func prefetch(_ ref: SlotRef) {
        guard let block = existingBlock(ref.day) else { return }
        let word = wordIndex(ref, block: block)
        words.withUnsafeBufferPointer { words in
            if let base = words.baseAddress { slot_scheduler_prefetch(base + word) }
        }
        cells.withUnsafeBufferPointer { cells in
            if let base = cells.baseAddress {
                slot_scheduler_prefetch(base + Self.cellIndex(word: word, hour: Int(ref.hour)))
            }
        }
    }
}

extension UserBook {
    /// Asks the CPU for the state of `user` when the id is direct, without waiting for it
    /// (finding a hashed id would have to wait for the table); changes nothing.
    @inline(__always)
    func prefetch(_ user: UserID) {
        guard user.rawValue < directLimit else { return }
        let index = Int(truncatingIfNeeded: user.rawValue >> idShift)
        states.withUnsafeBufferPointer { states in
            if let base = states.baseAddress { slot_scheduler_prefetch(base + index) }
        }
    }
}
