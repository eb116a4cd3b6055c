import Foundation
import SlotScheduler
import SlotSimulation
import Testing

/// `--check rules` over recorded histories: the model's time rules at the target's clock, and
/// linearizability per slot and per user, with unknown outcomes resolved by the bookings read back.
@Suite("Checking a booking API against the rules")
struct RulesCheckTests {
    /// One station in London: socket A open all day, B from 8:00 to 20:00. A limit of 1, 15
    /// minutes' notice, a rolling horizon of 14 days; the target's clock stands at 2026-12-01
    /// 08:00 UTC when the run starts (the history's times are nanoseconds after that).
    static func prepared() throws -> PreparedScenario {
        let scenario = Scenario(
            name: "rules", seed: 1,
            stations: [
                Station(
                    id: "S", name: "S", city: "London", timeZone: "Europe/London",
                    sockets: [
                        Socket(id: "A", connector: .ccs, powerKW: 50),
                        Socket(id: "B", connector: .ccs, powerKW: 50, openingHours: HourSet(8..<20)),
                    ])
            ],
            policy: ScenarioPolicy(maxUpcomingBookings: 1, rollingDays: 14, minimumNoticeSeconds: 900),
            clock: ScenarioClock(start: Fixtures.time("2026-11-29T00:00:00Z"), stepSeconds: 1),
            users: UserPopulation(count: 3))
        return try scenario.prepare(file: "rules.json")
    }

    static func adapter() throws -> Adapter {
        let json = """
            {"version": 1, "name": "test",
             "operations": {"reserve": {"method": "POST", "path": "/r"}, "cancel": {"method": "DELETE", "path": "/b/{booking}"},
                            "bookings": {"method": "GET", "path": "/me"}},
             "answers": {"accepted": [200, 201, 204], "refused": [409, 422], "retry": [429], "reason": "/reason",
                         "reasons": {"taken": "slotTaken"}, "booking": "/id",
                         "list": {"items": "", "id": "/id", "station": "/s", "socket": "/k", "date": "/d", "hour": "/h"}}}
            """
        return try JSONDecoder().decode(Adapter.self, from: Data(json.utf8))
    }

    static let clock = RulesCheck.TargetClock(start: 1_796_112_000, tolerance: 1.5)  // 2026-12-01T08:00:00Z

    static let second: Int64 = 1_000_000_000

    /// A reservation invoked at `at` seconds into the run and answered 5 ms later.
    static func reserve(
        _ index: Int, user: UInt64, _ slot: String, _ kind: TargetEvent.Kind, booking: String? = nil,
        reason: String? = nil, at: Int64, until: Int64? = nil
    ) -> [TargetEvent] {
        [
            TargetEvent(
                index: index, process: index, kind: .invoke, operation: "reserve", user: user, slot: slot,
                requestID: "k\(index)", time: at * second),
            TargetEvent(
                index: index, process: index, kind: kind, operation: "reserve", user: user, slot: slot,
                requestID: "k\(index)", booking: booking, reason: reason,
                time: until.map { $0 * second } ?? at * second + 5_000_000),
        ]
    }

    static func cancel(
        _ index: Int, user: UInt64, _ booking: String, _ kind: TargetEvent.Kind, reason: String? = nil, at: Int64
    )
        -> [TargetEvent]
    {
        [
            TargetEvent(
                index: index, process: index, kind: .invoke, operation: "cancel", user: user, booking: booking,
                time: at * second),
            TargetEvent(
                index: index, process: index, kind: kind, operation: "cancel", user: user, booking: booking,
                reason: reason, time: at * second + 5_000_000),
        ]
    }

    static func judge(_ history: [TargetEvent], listed: [ListedBooking], before: [ListedBooking] = []) throws
        -> RulesCheck.Result
    {
        RulesCheck.check(
            history: history, before: before, listed: listed, prepared: try prepared(), shiftDays: 0,
            adapter: try adapter(),
            clock: clock)
    }

    static let tomorrow = "S/A/2026-12-02/9"

    @Test func aHistoryTheRulesExplainHasNoFinding() throws {
        let history =
            Self.reserve(0, user: 1, Self.tomorrow, .ok, booking: "b1", at: 0)
            + Self.reserve(1, user: 2, Self.tomorrow, .fail, reason: "taken", at: 1)
            + Self.reserve(2, user: 1, "S/A/2026-12-02/10", .fail, reason: "userLimitReached", at: 2)
            + Self.cancel(3, user: 1, "b1", .ok, at: 3)
            + Self.cancel(4, user: 1, "b1", .fail, reason: "alreadyCancelled", at: 4)
            + Self.reserve(5, user: 2, Self.tomorrow, .ok, booking: "b2", at: 5)
            + Self.reserve(6, user: 3, "S/A/2026-11-30/9", .fail, reason: "slotInPast", at: 6)
            + Self.reserve(7, user: 3, "S/B/2026-12-02/21", .fail, reason: "outsideOpeningHours", at: 7)
            + Self.reserve(8, user: 3, "S/A/2026-12-20/9", .fail, reason: "beyondHorizon", at: 8)
        let listed = [
            ListedBooking(id: "b1", user: 1, slot: Self.tomorrow, live: false),
            ListedBooking(id: "b2", user: 2, slot: Self.tomorrow, live: true),
        ]
        let result = try Self.judge(history, listed: listed)
        #expect(result.findings.map(\.explanation) == [])
        // Slot tomorrow 9:00 and 10:00; users 1 and 2 (user 3's refusals are the time rules'); b1's
        // session, whose cancel is judged against the cutoff.
        #expect(result.partitions == 5)
    }

    @Test func aSlotRefusedAsTakenAfterItsCancelIsNotLinearizable() throws {
        let history =
            Self.reserve(0, user: 1, Self.tomorrow, .ok, booking: "b1", at: 0)
            + Self.cancel(1, user: 1, "b1", .ok, at: 1)
            + Self.reserve(2, user: 2, Self.tomorrow, .fail, reason: "taken", at: 2)
        let result = try Self.judge(
            history, listed: [ListedBooking(id: "b1", user: 1, slot: Self.tomorrow, live: false)])
        #expect(result.findings.map(\.invariant) == ["linearizable per slot"])
        #expect(result.findings.first?.events.map(\.index) == [0, 0, 1, 1, 2, 2])
        #expect(result.findings.first?.explanation.contains("slot S/A 2026-12-02 09:00") == true)
    }

    @Test func aRefusalAtTheLimitOfAUserWhoHoldsNothingIsNotLinearizable() throws {
        let history =
            Self.reserve(0, user: 1, Self.tomorrow, .ok, booking: "b1", at: 0)
            + Self.cancel(1, user: 1, "b1", .ok, at: 1)
            + Self.reserve(2, user: 1, "S/A/2026-12-02/10", .fail, reason: "userLimitReached", at: 2)
        let result = try Self.judge(
            history, listed: [ListedBooking(id: "b1", user: 1, slot: Self.tomorrow, live: false)])
        #expect(result.findings.map(\.invariant) == ["linearizable per user"])
    }

    @Test func aSecondBookingOverTheLimitIsNotLinearizable() throws {
        // Overlapping requests could go either way, but both were answered as made.
        let history =
            Self.reserve(0, user: 1, Self.tomorrow, .ok, booking: "b1", at: 0, until: 2)
            + Self.reserve(1, user: 1, "S/A/2026-12-02/10", .ok, booking: "b2", at: 1, until: 3)
        let listed = [
            ListedBooking(id: "b1", user: 1, slot: Self.tomorrow, live: true),
            ListedBooking(id: "b2", user: 1, slot: "S/A/2026-12-02/10", live: true),
        ]
        #expect(try Self.judge(history, listed: listed).findings.map(\.invariant) == ["linearizable per user"])
    }

    @Test func theTimeRulesAreTheModelsAtTheTargetsClock() throws {
        // 08:00 UTC is 08:00 in London: 08:00 today has begun, 08:10 is within the notice.
        let history =
            Self.reserve(0, user: 1, "S/A/2026-12-01/7", .ok, booking: "b1", at: 0)
            + Self.reserve(1, user: 2, "S/B/2026-12-02/6", .ok, booking: "b2", at: 0)
            + Self.reserve(2, user: 3, "S/A/2026-12-16/9", .ok, booking: "b3", at: 0)
            + Self.reserve(3, user: 1, "S/A/2026-12-03/9", .fail, reason: "tooSoon", at: 0)
            + Self.reserve(4, user: 2, "S/A/2026-12-03/9", .fail, reason: "closed for lunch", at: 0)
        let result = try Self.judge(history, listed: [])
        #expect(
            result.findings.map(\.invariant) == [
                "bookable when made", "bookable when made", "bookable when made", "refusals justified",
                "refusals justified",
            ])
        try #require(result.findings.count == 5)
        #expect(result.findings[0].explanation.contains("(slotInPast)"))
        #expect(result.findings[1].explanation.contains("(outsideOpeningHours)"))
        #expect(result.findings[2].explanation.contains("(beyondHorizon)"))
        #expect(result.findings[4].explanation.contains("closed for lunch"))
    }

    @Test func theClocksToleranceKeepsABorderlineAnswerUnjudged() throws {
        // 08:15 London starts exactly at now + notice: allowed for a moment, refused a second later.
        let history =
            Self.reserve(0, user: 1, "S/A/2026-12-01/8", .fail, reason: "tooSoon", at: 0)
            + Self.reserve(1, user: 2, "S/A/2026-12-01/9", .ok, booking: "b1", at: 2_699)
        #expect(try Self.judge(history, listed: []).findings.map(\.invariant) == [])
    }

    @Test func aSlotHeldFromBeforeTheRunExplainsRefusalsAsTaken() throws {
        let refused = Self.reserve(0, user: 2, Self.tomorrow, .fail, reason: "taken", at: 0)
        // Someone outside the run: the slot is taken throughout.
        #expect(try Self.judge(refused, listed: []).findings.isEmpty)
        // One of the run's users, read before it: their cancel frees it.
        let before = [ListedBooking(id: "old", user: 1, slot: Self.tomorrow, live: true)]
        let freed =
            refused + Self.cancel(1, user: 1, "old", .ok, at: 1)
            + Self.reserve(2, user: 2, Self.tomorrow, .fail, reason: "taken", at: 2)
        let result = try Self.judge(freed, listed: [], before: before)
        #expect(result.findings.map(\.invariant) == ["linearizable per slot"])
    }

    @Test func anUnknownReservationIsResolvedByTheBookingsReadBack() throws {
        let unknown =
            Self.reserve(0, user: 1, Self.tomorrow, .info, at: 0)
            + Self.reserve(1, user: 2, Self.tomorrow, .ok, booking: "b2", at: 1)
        // Not read back: it made nothing, and user 2's booking explains itself.
        #expect(
            try Self.judge(unknown, listed: [ListedBooking(id: "b2", user: 2, slot: Self.tomorrow, live: true)])
                .findings.isEmpty)
        // Read back: it made b1, which still holds the slot when b2 is made.
        let listed = [
            ListedBooking(id: "b1", user: 1, slot: Self.tomorrow, live: true),
            ListedBooking(id: "b2", user: 2, slot: Self.tomorrow, live: true),
        ]
        #expect(try Self.judge(unknown, listed: listed).findings.map(\.invariant) == ["linearizable per slot"])
    }

    @Test func anAdapterMapsReasonsOnlyToTheRulesOwn() throws {
        let adapter = try Self.adapter()
        #expect(adapter.reason("taken") == .slotTaken)
        #expect(adapter.reason("tooSoon") == .tooSoon)
        #expect(adapter.reason("closed for lunch") == nil)
        var bad = adapter
        bad.answers.reasons = ["taken": "gone"]
        let data = try JSONEncoder().encode(bad)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rules-adapter-\(getpid()).json")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(throws: AdapterError.self) { try Adapter.load(path: file.path) }
    }

    /// What an adapter may not hold: a header that a line break would split in two, a pointer
    /// without its `/`, a status no HTTP answer has; and a field missing is named by its path.
    @Test(arguments: [
        ("header name", #"{"X\nY": "1"}"#, "operations.reserve.headers"),
        ("header value", #"{"X": "a\r\nInjected: 1"}"#, "operations.reserve.headers"),
        ("status", "99999", "status 99999"), ("pointer", "not-a-pointer", "not a JSON pointer"),
        ("missing", "", "operations.reserve: a required field is missing"),
        // Sent never (the literal brace is no request target), so a run of them found nothing.
        ("path", "/slots/{station}/{Socket}/{date}/{hour}", "{Socket} is not a placeholder"),
        ("path", "/slots/{{}}/{socket}", "is not a placeholder"), ("path", "/slots/a b/{socket}", "no request target"),
        ("body", #"{"who": "{User}"}"#, "operations.reserve.body: {User} is not a placeholder"),
        ("list pointer", "ref", "\"ref\" is not a JSON pointer"),
    ])
    func anAdapterThatCannotBeSentIsRefused(what: String, value: String, said: String) throws {
        var object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.adapter())) as? [String: Any])
        var operations = try #require(object["operations"] as? [String: Any])
        var answers = try #require(object["answers"] as? [String: Any])
        var reserve = try #require(operations["reserve"] as? [String: Any])
        switch what {
        case "header name", "header value":
            reserve["headers"] = try JSONSerialization.jsonObject(with: Data(value.utf8))
        case "status": answers["accepted"] = [201, Int(value) ?? 0]
        case "pointer": answers["reason"] = value
        case "path": reserve["path"] = value
        case "body": reserve["body"] = try JSONSerialization.jsonObject(with: Data(value.utf8))
        case "list pointer":
            var list = try #require(answers["list"] as? [String: Any])
            list["id"] = value
            answers["list"] = list
        default: operations["reserve"] = nil
        }
        if what != "missing" { operations["reserve"] = reserve }
        (object["operations"], object["answers"]) = (operations, answers)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bad-adapter-\(getpid())-\(what.replacingOccurrences(of: " ", with: "-"))-\(value.count).json")
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            _ = try Adapter.load(path: file.path)
            Issue.record("\(what): the adapter was taken")
        } catch {
            #expect(error.problem.contains(said), "\(error)")
        }
    }

    @Test func theAdapterSchemaNamesEveryReasonOfTheRules() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Scenarios/adapter.schema.json")
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let answers = (schema?["properties"] as? [String: Any])?["answers"] as? [String: Any]
        let reasons = (answers?["properties"] as? [String: Any])?["reasons"] as? [String: Any]
        let names = (reasons?["additionalProperties"] as? [String: Any])?["enum"] as? [String]
        #expect(names == Rejection.Reason.allCases.map(\.rawValue))
    }

    /// Every operation the schema documents is one the adapter reads (and so the workload can
    /// send): an adapter naming them all keeps them all when decoded and written again.
    @Test func theAdapterReadsEveryOperationOfTheSchema() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Scenarios/adapter.schema.json")
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let operations = (schema?["properties"] as? [String: Any])?["operations"] as? [String: Any]
        let names = ((operations?["properties"] as? [String: Any])?.keys).map { Array($0).sorted() } ?? []
        #expect(names.contains("dayView") && names.contains("stations"))
        let requests = names.map { "\"\($0)\": {\"method\": \"GET\", \"path\": \"/\($0)\"}" }
        let json = """
            {"version": 1, "name": "all", "operations": {\(requests.joined(separator: ", "))},
             "answers": {"accepted": [200], "refused": [409], "booking": "/id", "hold": "/hold",
                         "list": {"items": "", "id": "/id", "station": "/s", "socket": "/k", "date": "/d", "hour": "/h"}}}
            """
        let adapter = try JSONDecoder().decode(Adapter.self, from: Data(json.utf8))
        let written = try JSONSerialization.jsonObject(with: JSONEncoder().encode(adapter.operations))
        #expect(((written as? [String: Any])?.keys).map { Array($0).sorted() } == names)
    }
}
