import Testing

@testable import SlotScheduler

/// ``RecordColumn``: chunked storage whose released chunks are freed, indices unchanged.
@Suite("Record column: chunks freed on release")
struct RecordColumnTests {
    static func record(_ i: Int) -> BookingRecord {
        BookingRecord(
            user: UserID(UInt64(i)), start: Int64(i), createdAt: 0,
            ref: SlotRef(station: 0, socket: 0, day: Int32(i / 100), hour: 0), reminder: -1, status: .active)
    }

    /// Dropping keeps every later index and frees the chunks wholly below the drop, so the
    /// records held follow the records kept (at most one chunk more), whatever was made before.
    @Test func dropFreesWholeChunksAndKeepsIndices() {
        var column = RecordColumn<BookingRecord>()
        column.prefault(3 * RecordColumn<BookingRecord>.chunkSize, with: .placeholder)
        var kept = 0
        for round in 0..<8 {
            for i in column.count..<column.count + 25_000 { column.append(Self.record(i)) }
            kept = column.count - 10_000 - round * 7
            column.drop(before: kept)
            #expect(column.indices == kept..<column.count)
            #expect(column.storedCount <= 10_000 + round * 7 + RecordColumn<BookingRecord>.chunkSize)
            for i in stride(from: kept, to: column.count, by: 997) { #expect(column[i] == Self.record(i)) }
        }
        column[kept] = Self.record(7)
        #expect(column[kept] == Self.record(7))
        #expect(column[kept + 1] == Self.record(kept + 1))
        column.drop(before: column.count)
        #expect(column.isEmpty && column.storedCount < RecordColumn<BookingRecord>.chunkSize)
    }

    /// A restore that starts mid-chunk after released records: indices start there.
    @Test func skipStartsMidChunk() {
        var column = RecordColumn<BookingRecord>()
        let start = 3 * RecordColumn<BookingRecord>.chunkSize + 123
        column.skip(to: start, filling: .placeholder)
        for i in start..<start + 2 * RecordColumn<BookingRecord>.chunkSize { column.append(Self.record(i)) }
        #expect(column.indices == start..<start + 2 * RecordColumn<BookingRecord>.chunkSize)
        for i in column.indices { #expect(column[i] == Self.record(i)) }
        column.drop(before: column.count)
        column.skip(to: column.count + 5, filling: .placeholder)
        column.append(Self.record(9))
        #expect(column[column.count - 1] == Self.record(9))
    }
}
