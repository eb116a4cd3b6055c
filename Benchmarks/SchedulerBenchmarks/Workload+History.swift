import SlotScheduler

extension Workload {
    /// Users of the long-history workload: 100, each holding ``endedPerUser`` ended bookings.
    ///
    /// Not the standard workload's 1 M users: 10,000 bookings each would be 10^10 bookings. With
    /// 100 users every one stays at the limit, so every attempt that reaches the limit check
    /// walks the user's bookings: the case that used to walk all 10,000 ended ones.
    static let historyUsers: UInt64 = 100
    static let endedPerUser = 10_000

    /// The standard attempts with each user id folded into ``historyUsers``.
    var longHistoryAttempts: [(SlotRef, UserID)] {
        attempts.map { ($0.0, UserID($0.1.rawValue % Self.historyUsers)) }
    }

    /// The slot of user `user`'s `index`-th booking of the history hour starting at `hourStart`:
    /// user u books sockets u·16 ..< u·16 + 16 (flat over the catalog) every hour.
    private func historySlot(user: Int, index: Int, day: LocalDate, hour: Int) throws -> SlotRef {
        let flat = user * Self.limit + index
        return try rules.catalog.resolve(
            Slot(
                station: StationID("ST-\(flat / Self.socketsPerStation)"),
                socket: SocketID("\(flat % Self.socketsPerStation)"), date: day, hour: hour))
    }

    /// Books the history: in the days before the workload's `now`, hour by hour, every history
    /// user books ``limit`` slots of that hour at its start, until each holds
    /// ``endedPerUser`` bookings; all have ended at `now`.
    func bookHistory(_ attempt: (SlotRef, UserID, Instant) -> Bool) throws {
        let hours = (Self.endedPerUser + Self.limit - 1) / Self.limit
        let firstHistoryDay = firstDay.adding(days: -(hours / 24 + 2))
        var made = 0
        for h in 0..<hours {
            let day = firstHistoryDay.adding(days: h / 24)
            let at = Instant.utc(day, hour: h % 24)
            for u in 0..<Int(Self.historyUsers) {
                for k in 0..<min(Self.limit, Self.endedPerUser - h * Self.limit) {
                    let ref = try historySlot(user: u, index: k, day: day, hour: h % 24)
                    if attempt(ref, UserID(UInt64(u)), at) { made += 1 }
                }
            }
        }
        guard made == Int(Self.historyUsers) * Self.endedPerUser else {
            throw HistoryError(made: made)
        }
    }

    struct HistoryError: Error { let made: Int }

    /// ``makeLedger(journaling:)`` with the long history booked.
    func makeLongHistoryLedger() throws -> Ledger {
        var ledger = try makeLedger()
        try bookHistory { ledger.attempt($0, for: $1, at: $2).isAccepted }
        return ledger
    }

    /// ``makeScheduler(shards:)`` with the long history booked.
    func makeLongHistoryScheduler() throws -> Scheduler {
        let scheduler = try makeScheduler()
        try bookHistory { scheduler.attempt($0, for: $1, at: $2).isAccepted }
        return scheduler
    }
}
