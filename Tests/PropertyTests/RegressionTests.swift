import Foundation
import SlotScheduler
import Testing

/// Every shrunk counterexample the properties found, kept as a literal test.
@Suite struct RegressionTests {
    static let smallWorld = WorldSpec(
        sockets0: 1, sockets1: 1, openFrom: 0, limit: 1, horizonKind: 0, horizonDays: 0, noticeHalfHours: 0,
        cutoffHalfHours: 0, season: 0, startHalfHours: 0)

    static func raw(_ r: [Int]) -> RawCommand {
        RawCommand(
            kind: r[0], station: r[1], socket: r[2], day: r[3], hour: r[4], user: r[5], request: r[6], extra: r[7])
    }

    /// Found by I8 (library bug, fixed in `Snapshot.events`): a booking cancelled and its slot
    /// booked again; restoring the snapshot replayed both reservations before the cancel and
    /// failed with "slot is already booked".
    @Test func I8_snapshotAfterCancelAndRebook() {
        let commands = [
            [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0, 0], [55, 0, 0, 0, 0, 1, 0, 0],
            [0, 0, 0, 0, 0, 0, 0, 0], [45, 0, 0, 0, 0, 0, 0, 7],
        ].map(Self.raw)
        runSequence(Self.smallWorld, commands) { step in checkReplay(step.after, now: step.now) }
    }

    /// Found by I12 (the property was too strict): reusing a request id for a slot that does not
    /// exist is refused for the slot (`unknownSocket`), which the catalog checks first.
    @Test func I12_reusedIDWithUnknownSocket() {
        let commands = [
            [0, 0, 0, 1, 1, 3, 0, 0], [50, 0, 0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 3, 2, 0],
        ].map(Self.raw)
        var remembered: [Remembered] = []
        runSequence(Self.smallWorld, commands) { step in
            checkIdempotent(step, &remembered) && checkMatchesModel(step)
        }
    }

    /// Found by I2 (the property was too strict): user 2 booked 20:00 and, an hour later,
    /// midnight; with the clock moved back half an hour the 20:00 booking is upcoming again, so
    /// user 2 holds 2 with limit 1 although each was admitted within the limit. I2 now checks each
    /// admission; a reservation at the earlier time is refused (`userLimitReached`).
    @Test func I2_clockMovedBackAfterAdmissions() {
        let commands = [
            [30, 0, 0, 0, 0, 1, 0, 0], [85, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 1, 0, 1, 0, 0],
            [93, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 3, 1, 0, 0],
        ].map(Self.raw)
        runSequence(Self.smallWorld, commands) { step in
            checkUserLimit(step, Self.smallWorld) && checkMatchesModel(step)
        }
    }
}
