import Foundation
import SlotScheduler
import Testing

extension WireFormatTests {
    @Test func anySocketRequest() throws {
        try check(
            "AnySocketRequest",
            AnySocketRequest(
                station: "IST-1", connector: .ccs, minimumPowerKW: 50, date: Self.day, hour: 14, user: 17,
                requestID: "req-2", reminder: .seconds(900)))
    }

    @Test func noMatchingSocketFreeRejection() throws {
        var ledger = try Self.ledger()
        let request = AnySocketRequest(
            station: "IST-1", connector: .ccs, minimumPowerKW: 50, date: Self.day, hour: 14, user: 17)
        _ = try ledger.reserve(request, at: Self.now)
        do {
            _ = try ledger.reserve(request, at: Self.now)
            Issue.record("expected a refusal")
        } catch {
            try check("Rejection-noMatchingSocketFree", error)
            try check("Rejection-noMatchingSocketFree-tr", error, language: .turkish)
        }
    }
}

extension WireFormatTests {
    /// A reschedule is one version-2 event; the events before it stay version 1, and a version-1
    /// reader's form of it (`"version": 1`) is refused.
    @Test func rescheduledEvent() throws {
        var ledger = try Self.ledger()
        let booking = try ledger.reserve(
            ReservationRequest(slot: Self.slot, user: 17, requestID: "r", reminder: .seconds(900)), at: Self.now)
        var later = Self.slot
        later.hour = 16
        try ledger.reschedule(
            RescheduleRequest(booking: booking.id, user: 17, to: later, requestID: "move-1"),
            at: Self.now + .seconds(60))
        try check("Events-rescheduled", ledger.events)
        try check("Snapshot-rescheduled", ledger.snapshot())
        // The request asked for 14:00, the booking holds 16:00: version 6, which an older reader refuses.
        let snapshot = String(decoding: try JSONEncoder().encode(ledger.snapshot()), as: UTF8.self)
        #expect(snapshot.contains(#""movedRequests""#) && snapshot.contains(#""version":6"#))
        let asVersion5 = Data(snapshot.replacingOccurrences(of: #""version":6"#, with: #""version":5"#).utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Snapshot.self, from: asVersion5) }
        let text = String(decoding: try Self.encode(ledger.events), as: UTF8.self)
        #expect(text.contains(#""version" : 2"#) && text.contains(#""version" : 1"#))
        let old = Data(
            #"{"version":1,"type":"rescheduled","booking":"1","user":17,"from":{"station":"IST-1","socket":"A","date":"2025-11-30","hour":14},"to":{"station":"IST-1","socket":"A","date":"2025-11-30","hour":16},"start":"2025-11-30T13:00:00Z","at":"2025-11-29T09:01:00Z"}"#
                .utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Event.self, from: old) }
    }
}
