import SlotScheduler

/// The binary form of `Event`: a tag byte, then the fields in a fixed order
/// (see the FileFormat article). Decoding checks every value it can without the catalog.
enum EventCoding {
    static let reservedTag: UInt8 = 1
    static let cancelledTag: UInt8 = 2
    static let availabilityChangedTag: UInt8 = 3
    static let displacedTag: UInt8 = 4
    static let rescheduledTag: UInt8 = 5
    static let heldTag: UInt8 = 6
    static let holdConfirmedTag: UInt8 = 7
    static let holdReleasedTag: UInt8 = 8
    static let checkedInTag: UInt8 = 9
    static let catalogChangedTag: UInt8 = 10
    static let checkedOutTag: UInt8 = 11

    static func encode(_ event: Event, into w: inout ByteWriter) {
        switch event {
        case .reserved(let b), .holdConfirmed(let b):
            if case .reserved = event { w.u8(reservedTag) } else { w.u8(holdConfirmedTag) }
            w.u64(b.id.rawValue)
            w.string(b.slot.station.rawValue)
            w.string(b.slot.socket.rawValue)
            w.i32(b.slot.date.dayNumber)
            w.u8(UInt8(truncatingIfNeeded: b.slot.hour))
            w.u64(b.user.rawValue)
            w.i64(b.start.secondsSinceEpoch)
            w.i64(b.createdAt.secondsSinceEpoch)
            w.u8((b.requestID == nil ? 0 : 1) | (b.reminderOffsetSeconds == nil ? 0 : 2))
            if let r = b.requestID { w.string(r.rawValue) }
            if let r = b.reminderOffsetSeconds { w.i64(r) }
            w.u8(statusCode(b.status))
        case .cancelled(let id, let user, let at), .displaced(let id, let user, let at),
            .checkedIn(let id, let user, let at), .checkedOut(let id, let user, let at):
            switch event {
            case .cancelled: w.u8(cancelledTag)
            case .displaced: w.u8(displacedTag)
            case .checkedIn: w.u8(checkedInTag)
            default: w.u8(checkedOutTag)
            }
            w.u64(id.rawValue)
            w.u64(user.rawValue)
            w.i64(at.secondsSinceEpoch)
        case .rescheduled(let m, let at):
            w.u8(rescheduledTag)
            w.u64(m.booking.rawValue)
            w.u64(m.user.rawValue)
            for slot in [m.from, m.to] {
                w.string(slot.station.rawValue)
                w.string(slot.socket.rawValue)
                w.i32(slot.date.dayNumber)
                w.u8(UInt8(truncatingIfNeeded: slot.hour))
            }
            w.i64(m.start.secondsSinceEpoch)
            w.u8(m.requestID == nil ? 0 : 1)
            if let r = m.requestID { w.string(r.rawValue) }
            w.i64(at.secondsSinceEpoch)
        case .availabilityChanged(let c, let at):
            w.u8(availabilityChangedTag)
            w.string(c.station.rawValue)
            w.u8(c.socket == nil ? 0 : 1)
            if let s = c.socket { w.string(s.rawValue) }
            w.i32(c.date.dayNumber)
            w.u8(c.hours == nil ? 0 : 1)
            if let h = c.hours { w.u32(h.mask) }
            w.i64(at.secondsSinceEpoch)
        case .held(let h):
            w.u8(heldTag)
            encode(h.slot, into: &w)
            w.u64(h.user.rawValue)
            w.i64(h.start.secondsSinceEpoch)
            w.i64(h.createdAt.secondsSinceEpoch)
            w.i64(h.expiresAt.secondsSinceEpoch)
            w.u8(h.reminderOffsetSeconds == nil ? 0 : 2)
            if let r = h.reminderOffsetSeconds { w.i64(r) }
        case .holdReleased(let slot, let user, let at):
            w.u8(holdReleasedTag)
            encode(slot, into: &w)
            w.u64(user.rawValue)
            w.i64(at.secondsSinceEpoch)
        case .catalogChanged(let change, let at):
            w.u8(catalogChangedTag)
            w.i64(at.secondsSinceEpoch)
            encode(change.stations, into: &w)
        }
    }

    /// A slot as its station, socket, date and hour.
    static func encode(_ slot: Slot, into w: inout ByteWriter) {
        w.string(slot.station.rawValue)
        w.string(slot.socket.rawValue)
        w.i32(slot.date.dayNumber)
        w.u8(UInt8(truncatingIfNeeded: slot.hour))
    }

    static func decodeSlot(_ r: inout ByteReader) throws(DecodeError) -> Slot {
        let station = StationID(try r.string("station"))
        let socket = SocketID(try r.string("socket"))
        let day = try r.i32("date")
        let hour = Int(try r.u8("hour"))
        guard hour < 24 else { throw r.fail("hour \(hour) is not 0...23") }
        return Slot(station: station, socket: socket, date: LocalDate(dayNumber: day), hour: hour)
    }

    static func decode(_ r: inout ByteReader) throws(DecodeError) -> Event {
        let tag = try r.u8("event tag")
        switch tag {
        case reservedTag, holdConfirmedTag:
            let id = BookingID(try r.u64("booking id"))
            let station = StationID(try r.string("station"))
            let socket = SocketID(try r.string("socket"))
            let day = try r.i32("date")
            let hour = Int(try r.u8("hour"))
            guard hour < 24 else { throw r.fail("hour \(hour) is not 0...23") }
            let user = UserID(try r.u64("user"))
            let start = Instant(secondsSinceEpoch: try r.i64("start"))
            let createdAt = Instant(secondsSinceEpoch: try r.i64("createdAt"))
            let flags = try r.u8("flags")
            guard flags & ~3 == 0 else { throw r.fail("unknown flags \(flags)") }
            let requestID = flags & 1 == 0 ? nil : RequestID(try r.string("request id"))
            let reminder = flags & 2 == 0 ? nil : try r.i64("reminder")
            let status = try self.status(try r.u8("status"), reader: r)
            let booking = Booking(
                id: id, slot: Slot(station: station, socket: socket, date: LocalDate(dayNumber: day), hour: hour),
                user: user, start: start, createdAt: createdAt, requestID: requestID,
                reminderOffsetSeconds: reminder, status: status)
            return tag == reservedTag ? .reserved(booking) : .holdConfirmed(booking)
        case heldTag:
            let slot = try decodeSlot(&r)
            let user = UserID(try r.u64("user"))
            let start = Instant(secondsSinceEpoch: try r.i64("start"))
            let createdAt = Instant(secondsSinceEpoch: try r.i64("createdAt"))
            let expiresAt = Instant(secondsSinceEpoch: try r.i64("expiresAt"))
            let flags = try r.u8("flags")
            guard flags & ~2 == 0 else { throw r.fail("unknown flags \(flags)") }
            let reminder = flags & 2 == 0 ? nil : try r.i64("reminder")
            return .held(
                Hold(
                    slot: slot, user: user, start: start, createdAt: createdAt, expiresAt: expiresAt,
                    reminderOffsetSeconds: reminder))
        case holdReleasedTag:
            let slot = try decodeSlot(&r)
            let user = UserID(try r.u64("user"))
            return .holdReleased(slot, user: user, at: Instant(secondsSinceEpoch: try r.i64("at")))
        case cancelledTag, displacedTag, checkedInTag, checkedOutTag:
            let id = BookingID(try r.u64("booking id"))
            let user = UserID(try r.u64("user"))
            let at = Instant(secondsSinceEpoch: try r.i64("at"))
            switch tag {
            case cancelledTag: return .cancelled(id, user: user, at: at)
            case displacedTag: return .displaced(id, user: user, at: at)
            case checkedInTag: return .checkedIn(id, user: user, at: at)
            default: return .checkedOut(id, user: user, at: at)
            }
        case availabilityChangedTag:
            let station = StationID(try r.string("station"))
            let socket = try r.u8("socket flag") == 0 ? nil : SocketID(try r.string("socket"))
            let day = try r.i32("date")
            let hours = try r.u8("hours flag") == 0 ? nil : HourSet(mask: try r.u32("hours"))
            let at = Instant(secondsSinceEpoch: try r.i64("at"))
            return .availabilityChanged(
                AvailabilityChange(station: station, socket: socket, date: LocalDate(dayNumber: day), hours: hours),
                at: at)
        case rescheduledTag:
            let booking = BookingID(try r.u64("booking id"))
            let user = UserID(try r.u64("user"))
            var slots: [Slot] = []
            for name in ["from", "to"] {
                let station = StationID(try r.string("\(name) station"))
                let socket = SocketID(try r.string("\(name) socket"))
                let day = try r.i32("\(name) date")
                let hour = Int(try r.u8("\(name) hour"))
                guard hour < 24 else { throw r.fail("hour \(hour) is not 0...23") }
                slots.append(Slot(station: station, socket: socket, date: LocalDate(dayNumber: day), hour: hour))
            }
            let start = Instant(secondsSinceEpoch: try r.i64("start"))
            let flags = try r.u8("flags")
            guard flags & ~1 == 0 else { throw r.fail("unknown flags \(flags)") }
            let requestID = flags == 0 ? nil : RequestID(try r.string("request id"))
            let at = Instant(secondsSinceEpoch: try r.i64("at"))
            return .rescheduled(
                BookingMove(
                    booking: booking, user: user, from: slots[0], to: slots[1], start: start, requestID: requestID),
                at: at)
        case catalogChangedTag:
            let at = Instant(secondsSinceEpoch: try r.i64("at"))
            return .catalogChanged(CatalogChange(stations: try decodeStations(&r)), at: at)
        default:
            throw r.fail("unknown event tag \(tag)")
        }
    }

    static func statusCode(_ s: Booking.Status) -> UInt8 {
        switch s {
        case .active: 0
        case .cancelled: 1
        case .displaced: 2
        case .fulfilled: 3
        }
    }

    static func status(_ code: UInt8, reader: ByteReader) throws(DecodeError) -> Booking.Status {
        switch code {
        case 0: .active
        case 1: .cancelled
        case 2: .displaced
        case 3: .fulfilled
        default: throw reader.fail("unknown status \(code)")
        }
    }
}
