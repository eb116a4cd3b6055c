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
