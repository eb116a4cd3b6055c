import Foundation
import SlotScheduler
import SlotSimulation
import Testing

/// The record `run --target --history` writes and `verify-target` reads.
@Suite("A target run's record")
struct TargetRecordTests {
    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString).jsonl")
            .path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every field of an event, a hold's, a check-in's wrong code and a check-out's place among
    /// them, reads back, and so do the stations' places.
    @Test func aRecordReadsBackAsItWasWritten() throws {
        let confirm = TargetEvent(
            index: 4, process: 4, kind: .invoke, operation: "confirm", user: 1, slot: RulesCheckTests.tomorrow,
            requestID: "k4", hold: "#3", time: 4)
        var confirmed = confirm
        (confirmed.kind, confirmed.booking, confirmed.status, confirmed.time) = (.ok, "b2", 200, 5)
        var checkIn = TargetEvent(
            index: 5, process: 5, kind: .invoke, operation: "checkIn", user: 1, booking: "b2", time: 6)
        checkIn.wrongCode = true
        var refused = checkIn
        (refused.kind, refused.status, refused.reason, refused.time) = (.fail, 422, "wrongAccessCode", 7)
        var checkOut = TargetEvent(
            index: 6, process: 6, kind: .invoke, operation: "checkOut", user: 1, slot: RulesCheckTests.tomorrow,
            booking: "b2", time: 8)
        checkOut.leftAt = Coordinate(latitude: 52.520_008_3, longitude: -13.404_954)
        var checkedOut = checkOut
        (checkedOut.kind, checkedOut.status, checkedOut.time) = (.ok, 200, 9)
        let record = TargetRecord(
            setup: .init(
                scenario: "rules", target: "http://127.0.0.1:1", shiftDays: 3,
                clock: .init(start: 1_796_112_000.25, tolerance: 1.5)),
            history: RulesCheckTests.reserve(0, user: 1, RulesCheckTests.tomorrow, .ok, booking: "b1", at: 0)
                + RulesCheckTests.reserve(1, user: 2, RulesCheckTests.tomorrow, .fail, reason: "taken", at: 1)
                + RulesCheckTests.cancel(2, user: 1, "b1", .info, at: 2)
                + [confirm, confirmed, checkIn, refused, checkOut, checkedOut],
            before: [ListedBooking(id: "old", user: 2, slot: "S/A/2026-12-03/9", live: true)],
            listed: [
                ListedBooking(id: "b1", user: 1, slot: RulesCheckTests.tomorrow, live: false),
                ListedBooking(id: "old", user: 2, slot: "S/A/2026-12-03/9", live: true),
            ],
            places: [
                StationPlace(station: "S", place: Coordinate(latitude: 52.520_008_3, longitude: -13.404_954)),
                StationPlace(station: "T", place: nil),
            ])
        let path = try Self.file(record.text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try TargetRecord.read(path: path) == record)
    }

    @Test func aRecordWithoutItsSetupOrWithABadLineIsRefusedByLine() throws {
        let noSetup = try Self.file(
            #"{"index":0,"kind":"invoke","operation":"reserve","process":0,"time":1,"user":1}"# + "\n")
        defer { try? FileManager.default.removeItem(atPath: noSetup) }
        let error = #expect(throws: TargetRecordError.self) { try TargetRecord.read(path: noSetup) }
        #expect(error?.description.contains("line 1: the first line must be the run's setup") == true)
        let setup =
            #"{"clockStart":1,"clockTolerance":1,"kind":"run","scenario":"s","shiftDays":0,"target":"t","version":1}"#
        let badEvent = try Self.file(setup + "\n" + #"{"kind":"ok","operation":"reserve"}"# + "\n")
        defer { try? FileManager.default.removeItem(atPath: badEvent) }
        let second = #expect(throws: TargetRecordError.self) { try TargetRecord.read(path: badEvent) }
        #expect(second?.description.contains("line 2: an event needs") == true)
    }

    /// A setup whose clock is out of range (`verify-target` trapped converting its moments to
    /// `Int64`) is refused on its line, naming both fields.
    @Test(arguments: [("1e300", "1"), ("-1e300", "1"), ("1", "1e300"), ("1", "-1"), ("1e11", "0")])
    func aClockOutOfRangeIsRefused(start: String, tolerance: String) throws {
        let path = try Self.file(
            #"{"clockStart":"# + start + #","clockTolerance":"# + tolerance
                + #","kind":"run","scenario":"s","shiftDays":0,"target":"t","version":1}"# + "\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: TargetRecordError.self) { try TargetRecord.read(path: path) }
        #expect(
            error?.description.contains("line 1: the setup's clockStart must be") == true,
            "\(String(describing: error))")
    }
}
