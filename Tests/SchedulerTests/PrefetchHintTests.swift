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
}
