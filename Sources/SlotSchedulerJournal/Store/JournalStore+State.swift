import SlotScheduler

extension JournalStore {
    /// Everything the lock guards: the append buffer and positions, the waiting callers, and
    /// the current journal. Positions count bytes appended since open.
    struct State {
        var buffer: [UInt8] = []
        /// The previous write's buffer, emptied, kept for its capacity.
        var spare: [UInt8] = []
        /// End of the last appended record.
        var appended: UInt64 = 0
        /// Where each buffered record ends (only read with group commit off).
        var recordEnds: [UInt64] = []
        /// End of the last record known durable.
        var durable: UInt64 = 0
        /// A leader is writing and syncing (only it touches `file`).
        var leading = false
        /// Set by a failed write or sync: every later command fails, nothing more is acknowledged.
        var failure: JournalError?
        var closed = false
        var waiters: [Waiter] = []
        var file: (any JournalFile)?
        var generation: UInt64
        var shards: Int
        var recoveredEvents: Int
        var tornBytes: Int
        var records = 0
        var syncs = 0
        /// Commands that reached the journal since the current (or last) write took the buffer.
        var arrivals = 0
        /// Callers the next write waits for (``JournalStore/waitDurable(_:)``): those the last
        /// sync released, who come back with their next command in a closed loop, plus those
        /// that arrived during that sync.
        var expected = 0
        /// How long the next write waits for them at most: half the last write and sync, at most 5 ms.
        var gatherLimit: Duration = .zero
        /// The number of the last sync, whose timer ends its wait; whether that wait is over.
        var gatherToken: UInt64 = 0
        var gatherExpired = true
        /// Records and bytes appended since the last checkpoint (or open).
        var recordsSinceCheckpoint = 0
        var bytesSinceCheckpoint = 0
        /// A caller has taken the automatic checkpoint that is due and will run it.
        var checkpointClaimed = false
        var automaticCheckpoints = 0
        var failedCheckpoints = 0

        init(
            file: any JournalFile, generation: UInt64, shards: Int, recoveredEvents: Int,
            tornBytes: Int
        ) {
            self.file = file
            self.generation = generation
            self.shards = shards
            self.recoveredEvents = recoveredEvents
            self.tornBytes = tornBytes
        }

        /// Throws if the store can take no more commands.
        func checkUsable(_ path: String) throws(JournalError) {
            if let failure { throw failure }
            if closed { throw JournalError(.closed, file: path, message: "the store is closed") }
        }

        /// Appends one command's events as a record.
        mutating func append(_ events: [Event]) {
            guard !events.isEmpty else { return }
            let before = buffer.count
            RecordFormat.events(.command, events, into: &buffer)
            appended += UInt64(buffer.count - before)
            recordEnds.append(appended)
            records += 1
            recordsSinceCheckpoint += 1
            bytesSinceCheckpoint += buffer.count - before
        }
    }

    /// A caller waiting until `target` is durable.
    struct Waiter {
        var target: UInt64
        var continuation: CheckedContinuation<Turn, any Error>
    }

    enum Turn { case done, lead, wait }
}

extension JournalStore.State {
    /// What a caller waiting for `target` does now: return, lead a write, or wait. With
    /// `gathering` (group commit), no write starts while callers the last sync released are
    /// still expected back, until that wait is over.
    mutating func turn(for target: UInt64, gathering: Bool) throws(JournalError) -> JournalStore.Turn {
        if durable >= target { return .done }
        if let failure { throw failure }
        if !leading, !gathering || gatherExpired || arrivals >= expected {
            leading = true
            return .lead
        }
        return .wait
    }
}
