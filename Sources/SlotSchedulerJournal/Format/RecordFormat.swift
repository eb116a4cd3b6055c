import SlotScheduler

/// The framing shared by journal and snapshot files (the FileFormat article):
///
///     file   := header record*
///     header := "SLOTJRNL" | u16 format version | u16 file kind | u32 shard count
///               | u64 generation | u32 CRC-32C of the 24 bytes before it          (28 bytes)
///     record := u32 payload length | u32 CRC-32C of (length bytes ‖ payload) | payload
///     payload := u8 record type | u8 record version | body
///
/// Integers are little-endian. A record is self-describing: its type and version say how to
/// read its body, so a newer writer can add types without breaking the framing.
enum RecordFormat {
    static let magic: [UInt8] = Array("SLOTJRNL".utf8)
    static let formatVersion: UInt16 = 1
    static let headerSize = 28
    static let frameSize = 8
    /// Larger payloads are never written, so a larger length is corruption, not a record.
    static let maxPayload = 1 << 24

    enum FileKind: UInt16 {
        case journal = 1
        case snapshot = 2
    }

    enum RecordType: UInt8 {
        /// The events of one acknowledged command, in the order they happened.
        case command = 1
        /// A slice of a snapshot's events.
        case snapshotEvents = 2
        /// The last record of a complete snapshot: how many events it holds.
        case snapshotEnd = 3
        /// In a snapshot taken after a release (`Scheduler.releaseDays`), before its end: the
        /// first date not released and the last booking id of each epoch and shard.
        case snapshotRetention = 4
        /// In a snapshot that remembers reschedule request ids, before its end: a `u32` count and
        /// each as user, request id, booking id and the slot moved to.
        case snapshotReschedules = 5
        /// In a snapshot taken after a catalog change, before its end: the catalog its bookings
        /// were made under, as `Catalog.Record` (revision, stations, retired stations, sockets in
        /// service, flat indices); see `EventCoding+Stations.swift`.
        case snapshotCatalog = 6
        /// In a snapshot that remembers reservation request ids whose bookings moved since,
        /// before its end: a `u32` count and each as user, request id, booking id and the slot
        /// the reservation asked for (`Snapshot.movedRequests`).
        case snapshotMovedRequests = 7
    }
    static let recordVersion: UInt8 = 1

    struct Header: Equatable {
        var kind: FileKind
        var shards: Int
        var generation: UInt64
    }

    static func header(_ h: Header) -> [UInt8] {
        var w = ByteWriter()
        w.bytes.append(contentsOf: magic)
        w.u16(formatVersion)
        w.u16(h.kind.rawValue)
        w.u32(UInt32(truncatingIfNeeded: h.shards))
        w.u64(h.generation)
        w.u32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    static func readHeader(_ bytes: [UInt8]) throws(DecodeError) -> Header {
        guard bytes.count >= headerSize else { throw DecodeError(offset: 0, problem: "file shorter than its header") }
        guard Array(bytes[0..<8]) == magic else { throw DecodeError(offset: 0, problem: "not a SlotScheduler journal") }
        var r = ByteReader(bytes[8..<headerSize])
        let version = try r.u16("format version")
        let kind = try r.u16("file kind")
        let shards = try r.u32("shard count")
        let generation = try r.u64("generation")
        let crc = try r.u32("header checksum")
        guard crc == CRC32C.checksum(bytes[0..<24]) else {
            throw DecodeError(offset: 24, problem: "header checksum mismatch")
        }
        guard version == formatVersion else {
            throw DecodeError(offset: 8, problem: "format version \(version); this build reads \(formatVersion)")
        }
        guard let fileKind = FileKind(rawValue: kind) else {
            throw DecodeError(offset: 10, problem: "file kind \(kind)")
        }
        guard (1...4096).contains(shards) else { throw DecodeError(offset: 12, problem: "shard count \(shards)") }
        return Header(kind: fileKind, shards: Int(shards), generation: generation)
    }

    /// Appends one framed record.
    static func frame(_ type: RecordType, into out: inout [UInt8], body: (inout ByteWriter) -> Void) {
        var w = ByteWriter()
        w.u32(0)  // length, patched below
        w.u32(0)  // checksum
        w.u8(type.rawValue)
        w.u8(recordVersion)
        body(&w)
        let length = UInt32(w.bytes.count - frameSize)
        for i in 0..<4 { w.bytes[i] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(i))) }
        let crc = CRC32C.update(CRC32C.checksum(w.bytes[0..<4]), w.bytes[frameSize...])
        for i in 0..<4 { w.bytes[4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        out.append(contentsOf: w.bytes)
    }

    /// Appends a record holding `events`.
    static func events(_ type: RecordType, _ events: some Collection<Event>, into out: inout [UInt8]) {
        frame(type, into: &out) { w in
            w.u32(UInt32(truncatingIfNeeded: events.count))
            for e in events { EventCoding.encode(e, into: &w) }
        }
    }

    /// A record read back: its type and the reader positioned at its body.
    struct Record {
        var type: RecordType
        var body: ByteReader
        /// Bytes from the record's start to the next record.
        var size: Int
    }

    /// The outcome of reading at an offset.
    enum Read {
        case record(Record)
        /// Not a valid record here (cut short, checksum or decoding failed): why.
        case invalid(String)
    }

    /// Reads the record at `offset`, checking length bounds, checksum, type and version.
    static func read(_ bytes: [UInt8], at offset: Int) -> Read {
        let available = bytes.count - offset
        guard available >= frameSize else { return .invalid("\(available) bytes, shorter than a record frame") }
        var r = ByteReader(bytes[offset..<offset + frameSize])
        guard let length = try? Int(r.u32("length")), let crc = try? r.u32("checksum") else {
            return .invalid("unreadable frame")
        }
        guard length >= 2, length <= maxPayload else { return .invalid("length \(length) out of range") }
        guard length <= available - frameSize else {
            return .invalid("length \(length) runs past the end of the file")
        }
        let payload = bytes[offset + frameSize..<offset + frameSize + length]
        guard CRC32C.update(CRC32C.checksum(bytes[offset..<offset + 4]), payload) == crc else {
            return .invalid("checksum mismatch")
        }
        var body = ByteReader(payload)
        guard let rawType = try? body.u8("type"), let type = RecordType(rawValue: rawType) else {
            return .invalid("unknown record type")
        }
        guard let version = try? body.u8("version"), version == recordVersion else {
            return .invalid("record version this build does not read")
        }
        return .record(Record(type: type, body: body, size: frameSize + length))
    }

    /// The events of a command or snapshot-events record.
    static func decodeEvents(_ record: Record) throws(DecodeError) -> [Event] {
        var r = record.body
        let count = Int(try r.u32("event count"))
        var events: [Event] = []
        events.reserveCapacity(min(count, 1024))
        for _ in 0..<count { events.append(try EventCoding.decode(&r)) }
        guard r.isAtEnd else { throw r.fail("bytes after the last event") }
        return events
    }
}
