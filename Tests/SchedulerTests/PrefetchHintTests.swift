import Testing

@testable import SlotScheduler

/// The address a stripe publishes for prefetching a user's state follows its states when they
/// move, and names the state a direct user's reservation reads.
struct PrefetchHintTests {
    @Test func publishedHintFollowsTheStatesWhenTheyMove() {
        let cells = LockedCells([UserBook(directUsers: 16, idShift: 0)])
        let before = cells.withLock(0) { $0.prefetchHint }
        #expect(before != 0 && cells.hint(0) == before)
        // Hashed ids (at or above the direct limit) grow the table, which appends to `states`:
        // enough of them move the states to a new allocation.
        let moved = cells.withLock(0) { book -> UInt in
            for id in UInt64(1_000)..<UInt64(5_000) { _ = book.findOrInsert(UserID(id)) }
            return book.prefetchHint
        }
        #expect(moved != before)
        #expect(cells.hint(0) == moved)
    }

    @Test func hintNamesADirectUsersState() throws {
        let scheduler = try Fixture.scheduler(shards: 2)
        let user = UserID(5)
        let stripe = scheduler.stripe(of: user)
        let hinted = scheduler.stripes.hint(stripe)
        let index = Int(user.rawValue >> scheduler.directShift)
        let actual = scheduler.stripes.withLock(stripe) { book in
            book.states.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress.map { $0 + index }) }
        }
        #expect(user.rawValue < scheduler.directLimit)
        #expect(hinted + UInt(index * MemoryLayout<UserBook.UserState>.stride) == actual)
    }

    /// The addresses of `ref`'s word and cell in the shard's book, read under its lock.
    static func actualAddresses(of ref: SlotRef, in scheduler: Scheduler) -> (word: UInt, cell: UInt)? {
        scheduler.shards.withLock(scheduler.shard(of: ref.station)) { book in
            guard let block = book.existingBlock(ref.day) else { return nil }
            let word = block * book.socketCount + book.local(ref)
            let words = book.words.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            let cells = book.cells.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            return (
                words + UInt(word * MemoryLayout<SocketDay>.stride),
                cells + UInt((word * 24 + Int(ref.hour)) * MemoryLayout<UInt32>.stride)
            )
        }
    }

    @Test func slotHintsNameTheSlotAfterItsDayIsUsedAndFollowTheBlocksWhenTheyMove() throws {
        let scheduler = try Fixture.scheduler(shards: 2)
        let day = try Fixture.day()
        let now = Instant.utc(day.adding(days: -1), hour: 12)
        let ref = try scheduler.rules.catalog.resolve(Fixture.slot("LON", "1", day, 10))
        let shard = scheduler.shard(of: ref.station)
        #expect(scheduler.slotHints.addresses(of: ref, shard: shard) == nil, "nothing published yet")
        #expect(scheduler.attempt(ref, for: UserID(1), at: now).isAccepted)
        let first = try #require(Self.actualAddresses(of: ref, in: scheduler))
        #expect(
            scheduler.slotHints.addresses(of: ref, shard: shard).map { [$0.word, $0.cell] } == [first.word, first.cell])
        // Sixty more days each add a block: the words and cells move to larger allocations.
        for offset in 1...60 {
            let other = try scheduler.rules.catalog.resolve(Fixture.slot("LON", "2", day.adding(days: offset), 10))
            _ = scheduler.attempt(other, for: UserID(UInt64(100 + offset)), at: now)
        }
        let moved = try #require(Self.actualAddresses(of: ref, in: scheduler))
        #expect(moved.cell != first.cell, "the cells moved")
        #expect(
            scheduler.slotHints.addresses(of: ref, shard: shard).map { [$0.word, $0.cell] } == [moved.word, moved.cell])
        let unused = try scheduler.rules.catalog.resolve(Fixture.slot("LON", "1", day.adding(days: -5), 10))
        #expect(scheduler.slotHints.addresses(of: unused, shard: shard) == nil, "a day without a block has no hint")
    }

    /// Every decision that can give a day its block publishes it, as a reservation does: a hold,
    /// an any-socket reservation and a reschedule take their locks the same way (`withBooks`).
    @Test func holdsAnySocketReservationsAndReschedulesPublishTheDaysTheyOpen() throws {
        let scheduler = try Fixture.scheduler(shards: 2)
        let day = try Fixture.day()
        let now = Instant.utc(day.adding(days: -1), hour: 12)
        let held = Fixture.slot(day, 10)
        _ = try scheduler.hold(held, for: UserID(1), at: now)
        let any = AnySocketRequest(
            station: "LON", connector: .ccs, date: day.adding(days: 1), hour: 10, user: UserID(2))
        let booking = try scheduler.reserve(any, at: now)
        let target = Fixture.slot(day.adding(days: 2), 10)
        _ = try scheduler.reschedule(RescheduleRequest(booking: booking.id, user: UserID(2), to: target), at: now)
        for slot in [held, booking.slot, target] {
            let ref = try scheduler.rules.catalog.resolve(slot)
            let actual = try #require(Self.actualAddresses(of: ref, in: scheduler))
            let hint = scheduler.slotHints.addresses(of: ref, shard: scheduler.shard(of: ref.station))
            #expect(hint.map { [$0.word, $0.cell] } == [actual.word, actual.cell], "\(slot)")
        }
    }

    /// On the benchmarks' 64 shards, a year of days of one shard each keeps its own entry: with
    /// 128 entries per shard, every day shared one with another, and half the prefetches were lost.
    @Test func slotHintsKeepAYearOfDaysApartOnManyShards() throws {
        let scheduler = Scheduler(rules: try Fixture.scheduler().rules, shards: 64)
        let day = try Fixture.day()
        let now = Instant.utc(day.adding(days: -1), hour: 12)
        let refs = try (0..<366).map {
            try scheduler.rules.catalog.resolve(Fixture.slot("LON", "1", day.adding(days: $0), 10))
        }
        for (i, ref) in refs.enumerated() { _ = scheduler.attempt(ref, for: UserID(UInt64(i)), at: now) }
        let shard = scheduler.shard(of: refs[0].station)
        let hinted = refs.filter { ref in
            guard let hint = scheduler.slotHints.addresses(of: ref, shard: shard),
                let actual = Self.actualAddresses(of: ref, in: scheduler)
            else { return false }
            return hint.word == actual.word && hint.cell == actual.cell
        }
        #expect(hinted.count == refs.count)
    }
}
