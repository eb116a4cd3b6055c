import SlotScheduler

/// One request id a snapshot remembers with its booking and a slot: a reschedule's (the slot it
/// moved the booking to) or a moved booking's reservation's (the slot it asked for). Both records
/// (`snapshotReschedules`, `snapshotMovedRequests`) are a `u32` count, then each as the `u64`
/// user, the request id, the `u64` booking id and the slot.
struct RequestMemo: Equatable {
    var user: UserID
    var requestID: RequestID
    var booking: BookingID
    var slot: Slot

    /// Appends a record of `type` holding `memos`, unless there are none.
    static func frame(_ type: RecordFormat.RecordType, _ memos: [RequestMemo], into bytes: inout [UInt8]) {
        guard !memos.isEmpty else { return }
        RecordFormat.frame(type, into: &bytes) { w in
            w.u32(UInt32(truncatingIfNeeded: memos.count))
            for memo in memos {
                w.u64(memo.user.rawValue)
                w.string(memo.requestID.rawValue)
                w.u64(memo.booking.rawValue)
                EventCoding.encode(memo.slot, into: &w)
            }
        }
    }

    /// The memos of a record `frame` wrote; a record that does not decode is corrupt, at `offset`
    /// of `path`, named by `what` in the message.
    static func decode(_ record: RecordFormat.Record, naming what: String, path: String, offset: Int)
        throws(JournalError) -> [RequestMemo]
    {
        var body = record.body
        do throws(DecodeError) {
            let count = Int(try body.u32("\(what) count"))
            guard count <= RecordFormat.maxPayload else { throw body.fail("\(count) \(what)s") }
            var memos: [RequestMemo] = []
            for _ in 0..<count {
                let user = UserID(try body.u64("user"))
                let requestID = RequestID(try body.string("request id"))
                let booking = BookingID(try body.u64("booking id"))
                memos.append(
                    RequestMemo(
                        user: user, requestID: requestID, booking: booking, slot: try EventCoding.decodeSlot(&body)))
            }
            guard body.isAtEnd else { throw body.fail("bytes after the \(what)s") }
            return memos
        } catch {
            throw JournalError(.corrupt, file: path, offset: offset, message: "snapshot \(what) record: \(error)")
        }
    }
}
