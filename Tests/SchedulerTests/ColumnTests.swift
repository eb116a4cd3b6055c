import Testing

@testable import SlotScheduler

/// ``Column``: an array whose count lives in the struct. It must behave as a value, as `Array`
/// does: a ``Ledger`` is a value, and a copy of one must not see the original's later bookings.
@Suite("Column: an array with its count beside its pointer")
struct ColumnTests {
    /// Appends past every doubling, reads and writes, compared with an `Array` doing the same.
    @Test func growsAndReadsAsAnArray() {
        var column = Column<Int64>()
        var array: [Int64] = []
        for i in 0..<10_000 {
            column.append(Int64(i) * 3)
            array.append(Int64(i) * 3)
            if i % 7 == 0 {
                column[i / 2] = -Int64(i)
                array[i / 2] = -Int64(i)
            }
        }
        #expect(Array(column) == array)
        #expect(column.count == array.count)
        #expect(Array(column[9_990...]) == Array(array[9_990...]))
    }

    /// A copy keeps its elements when the original appends, is written, or is emptied, and the
    /// other way round: copy-on-write, with no element shared once either side writes.
    @Test func copiesAreIndependentValues() {
        var original = Column<Int32>()
        for i in 0..<100 { original.append(Int32(i)) }
        let snapshot = original
        var copy = original
        copy[5] = -5
        copy.append(1_000)
        original[6] = -6
        original.append(2_000)
        #expect(Array(snapshot) == Array(0..<100).map { Int32($0) })
        #expect(copy[5] == -5 && copy[6] == 6 && copy.last == 1_000 && copy.count == 101)
        #expect(original[5] == 5 && original[6] == -6 && original.last == 2_000 && original.count == 101)
        var emptied = original
        emptied.removeAll(keepingCapacity: true)
        #expect(emptied.isEmpty && original.count == 101 && original[6] == -6)
    }

    /// Prefaulting reserves room without adding elements, and emptying keeps that room.
    @Test func prefaultAddsNoElements() {
        var column = Column<Int64>()
        column.append(1)
        column.prefault(1_000, with: 7)
        #expect(Array(column) == [1])
        for i in 0..<999 { column.append(Int64(i)) }
        #expect(column.count == 1_000 && column[0] == 1 && column[999] == 998)
        for i in 0..<5_000 { column.append(Int64(i)) }
        #expect(column.count == 6_000 && column[999] == 998 && column[5_999] == 4_999)
        column.removeAll(keepingCapacity: true)
        #expect(column.isEmpty)
        column.append(4)
        #expect(Array(column) == [4])
    }

    /// A ledger copied before more bookings keeps its own journal, records and user entries.
    @Test func aCopiedLedgerKeepsItsOwnBookings() throws {
        var ledger = try Ledger(stations: [Fixture.london], policy: Policy())
        let now = try Fixture.earlyNow()
        _ = try ledger.reserve(Fixture.request(Fixture.slot(try Fixture.day(), 9), user: 1), at: now)
        let before = ledger
        _ = try ledger.reserve(Fixture.request(Fixture.slot(try Fixture.day(), 10), user: 2), at: now)
        #expect(before.events.count == 1 && ledger.events.count == 2)
        #expect(before.bookings(of: UserID(2), at: now).upcoming.isEmpty)
        #expect(ledger.bookings(of: UserID(2), at: now).upcoming.count == 1)
    }
}

/// What a ``Scheduler`` reservation writes in its shard's and its stripe's books lies on the
/// 64-byte line of the cell's lock word (the book starts 8 bytes into its cell): those lines move
/// between cores anyway when two threads take turns, the other lines of the books stay shared.
@Suite("Book layout: written fields beside the lock")
struct BookLayoutTests {
    @Test func slotBookLeadsWithTheJournalAndTheRecords() throws {
        let journal = try #require(MemoryLayout<SlotBook>.offset(of: \SlotBook.journal))
        let records = try #require(MemoryLayout<SlotBook>.offset(of: \SlotBook.records))
        #expect(journal == 0 && records == MemoryLayout<Column<JournalEntry>>.size)
        // The records' tail column and the index of its first record lead `RecordColumn`.
        #expect(8 + records + MemoryLayout<Column<BookingRecord>>.size + MemoryLayout<Int>.size <= 64)
    }

    @Test func userBookLeadsWithWhatAReservationWrites() throws {
        let total = try #require(MemoryLayout<UserBook>.offset(of: \UserBook.activeTotal))
        let free = try #require(MemoryLayout<UserBook>.offset(of: \UserBook.freeEntry))
        let entries = try #require(MemoryLayout<UserBook>.offset(of: \UserBook.entries))
        #expect(entries == 0 && free < 56 && 8 + total + MemoryLayout<Int>.size <= 64)
    }
}
