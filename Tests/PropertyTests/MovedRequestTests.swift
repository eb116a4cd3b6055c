import Foundation
import SlotScheduler
import SlotSimulation
import Testing

/// A reservation's request id whose booking moved: a repeat answers with the booking wherever it
/// is now, as the model says, on every face and after every restore; a release forgets the id only
/// with the booking, by the date the booking holds. Found on 2026-12-01 by a mutant no test
/// caught (`release-remembers-request-ids`): a restore from a snapshot answered the repeat
/// `conflictingRequestID` (the snapshot's booking held only its new slot), and after a release of
/// the date the reservation asked for the ledger and the scheduler answered `slotInPast`.
@Suite struct MovedRequestTests {
    static let world = WorldSpec(
        sockets0: 1, sockets1: 1, openFrom: 0, limit: 3, horizonKind: 0, horizonDays: 0, noticeHalfHours: 0,
        cutoffHalfHours: 0, season: 0, startHalfHours: 0)

    /// The faces: a ledger, a scheduler, and each restored from the other's snapshot (once
    /// through JSON).
    struct Faces {
        var ledger: Ledger
        let scheduler: Scheduler

        func restored(_ rules: Rules) throws -> [(String, any RepeatFace)] {
            let json = try JSONDecoder().decode(Snapshot.self, from: JSONEncoder().encode(scheduler.snapshot()))
            return [
                ("ledger", ledger), ("scheduler", scheduler),
                ("ledger from the scheduler's snapshot (JSON)", try Ledger(rules: rules, snapshot: json)),
                (
                    "scheduler from the ledger's snapshot",
                    try Scheduler(rules: rules, shards: 3, snapshot: ledger.snapshot())
                ),
            ]
        }
    }

    /// The model's answer as ``RepeatFace/repeatAnswer(_:at:)`` writes the faces': the model makes
    /// booking `made` and no other here, so a booking it answers with is a repeat of it.
    static func answer(_ result: ModelResult<Booking>, made: BookingID) -> String {
        switch result {
        case .success(let booking): booking.id == made ? "repeat of \(booking.id) at \(booking.slot)" : "new"
        case .failure(let reason): "refused: \(reason)"
        }
    }

    @Test func aRepeatAfterAMoveAnswersAsTheModelOnEveryFace() throws {
        let rules = try #require(Self.world.rules)
        var faces = Faces(ledger: Ledger(rules: rules), scheduler: Scheduler(rules: rules, shards: 2, userStripes: 4))
        var model = ReferenceModel(stations: Self.world.stations, policy: Self.world.policy)
        let now = Self.world.startNow
        let day = Self.world.dstDate
        let asked = Slot(station: "S0", socket: "1", date: day, hour: 12)
        let movedTo = Slot(station: "S0", socket: "1", date: day.adding(days: 3), hour: 12)
        let request = ReservationRequest(slot: asked, user: 1, requestID: "r")
        let made = try faces.ledger.reserve(request, at: now)
        #expect(try faces.scheduler.reserve(request, at: now) == made)
        _ = model.reserve(request, at: now)
        let move = RescheduleRequest(booking: made.id, user: 1, to: movedTo)
        _ = try faces.ledger.reschedule(move, at: now)
        _ = try faces.scheduler.reschedule(move, at: now)
        _ = model.reschedule(move, at: now)

        func check(_ label: String, at time: Instant) throws {
            for (name, face) in try faces.restored(rules) {
                for probe in [request, ReservationRequest(slot: movedTo, user: 1, requestID: "r")] {
                    let expected = Self.answer(model.reserve(probe, at: time), made: made.id)
                    let answer = face.repeatAnswer(probe, at: time)
                    #expect(
                        answer == expected,
                        "\(label), \(name), a repeat for \(probe.slot): \(answer); model \(expected)")
                }
            }
        }
        /// Releases the dates before day D + `days` on every face and in the model, at noon UTC
        /// that day, and checks the repeats then.
        func release(_ days: Int, _ label: String) throws -> Instant {
            let at = Instant(secondsSinceEpoch: (Int64(day.dayNumber) + Int64(days)) * 86_400 + 12 * 3_600)
            let cutoff = day.adding(days: days)
            try faces.scheduler.releaseDays(before: cutoff, at: at)
            try faces.ledger.releaseDays(before: cutoff, at: at)
            let released = model.release(before: cutoff, at: at)
            #expect(released, "the model releases the dates before \(cutoff)")
            try check(label, at: at)
            return at
        }
        try check("after the move", at: now)
        // The date asked for is released; the booking's date is not: the id is still remembered.
        let later = try release(2, "after a release of the date asked for")
        let repeated = Self.answer(model.reserve(request, at: later), made: made.id)
        #expect(repeated == "repeat of \(made.id) at \(movedTo)")
        // The booking's own date released: the id is forgotten with it.
        _ = try release(4, "after a release of the booking's date")
    }
}
