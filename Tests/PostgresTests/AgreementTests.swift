#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import SlotScheduler
import SlotSchedulerPostgres
import SlotSimulation
import Testing

/// Fails the run in CI when there is no database; explains the skip locally.
@Test func databaseIsConfigured() {
    guard TestDatabase.url == nil else { return }
    if TestDatabase.isCI {
        Issue.record("CI=true but SLOTSCHEDULER_DATABASE_URL is not set: the PostgreSQL suite cannot run")
    } else {
        print(TestDatabase.skipMessage)
    }
}

/// Translates the store's booking ids into the ledger's, learning the pairing as bookings appear.
struct IDMap {
    var toLedger: [BookingID: BookingID] = [:]
    var toStore: [BookingID: BookingID] = [:]

    mutating func learn(store: BookingID, ledger: BookingID) {
        toLedger[store] = ledger
        toStore[ledger] = store
    }
    func ledgerView(_ booking: Booking) -> Booking {
        var copy = booking
        copy.id = toLedger[booking.id] ?? BookingID(0)
        return copy
    }
    func ledgerView(_ rejection: Rejection) -> Rejection {
        var copy = rejection
        copy.booking = rejection.booking.map { toLedger[$0] ?? $0 }
        return copy
    }
}

enum Outcome: Equatable, CustomStringConvertible {
    case booking(Booking)
    case bookings([Booking])
    case refused(Rejection)

    var description: String {
        switch self {
        case .booking(let b): "booked \(b.id) \(b.slot) user \(b.user) \(b.status.rawValue)"
        case .bookings(let list): "bookings \(list.map(\.id))"
        case .refused(let r): "refused \(r.reason.rawValue): \(r)"
        }
    }

    /// What the reference model decides of an outcome: who booked which slot, starting when, or
    /// the refusal's reason (the model has neither ids nor a refusal's details).
    var asTheModelSeesIt: String {
        switch self {
        case .booking(let b): "booked \(b.slot) user \(b.user) from \(b.start) \(b.status.rawValue)"
        case .bookings(let list): "displaced \(list.map { "\($0.slot) user \($0.user)" }.sorted())"
        case .refused(let r): "refused \(r.reason.rawValue)"
        }
    }

    /// The model's answer, as ``asTheModelSeesIt`` writes an outcome.
    static func model(_ result: ModelResult<Booking>) -> String {
        switch result {
        case .success(let b): Outcome.booking(b).asTheModelSeesIt
        case .failure(let reason): "refused \(reason.rawValue)"
        }
    }

    static func model(_ result: ModelResult<[Booking]>) -> String {
        switch result {
        case .success(let list): Outcome.bookings(list).asTheModelSeesIt
        case .failure(let reason): "refused \(reason.rawValue)"
        }
    }
}

@Suite(
    .serialized, .sharedDatabase,
    .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct AgreementTests {
    /// The same fixed, seeded command sequence on the in-memory ledger and on PostgreSQL gives the
    /// same results, refusal for refusal, and the same final state; and each answer is the
    /// reference model's (the one specification, `SlotSimulation`'s `ReferenceModel`), which
    /// shares no code with either. The sequence reaches every refusal reason.
    @Test func agreesWithLedgerOnAFixedSequence() async throws {
        let store = try await TestDatabase.store(schema: TestDatabase.freshSchema("agree"))
        var ledger = Ledger(rules: try Rules(catalog: try Catalog(Fixture.stations), policy: Fixture.policy))
        var model = ReferenceModel(
            stations: Fixture.stations, policy: Fixture.policy, clock: CatalogClock(try Catalog(Fixture.stations)))
        /// The model's booking ids by the ledger's.
        var modelIDs: [BookingID: BookingID] = [:]
        var ids = IDMap()
        var made: [BookingID] = []  // ledger ids, in order of creation
        var reasons = Set<Rejection.Reason>()
        var random = Seeded(state: 2030)
        let days = [
            Fixture.day, Fixture.day.adding(days: 1), Fixture.date("2030-03-31"), Fixture.day.adding(days: 40),
            Fixture.now.date.adding(days: -1), Fixture.now.date,
        ]
        let stations: [StationID] = ["north", "north", "south", "west"]
        let sockets: [StationID: [SocketID]] = [
            "north": ["1", "2", "night", "9"], "south": ["A", "B"], "west": ["1"],
        ]
        var now = Fixture.now
        for step in 0..<600 {
            now = now + .seconds(Int64.random(in: 0...900, using: &random))
            let station = stations.randomElement(using: &random) ?? "north"
            let socket = sockets[station]?.randomElement(using: &random) ?? "1"
            let date = days[Int.random(in: 0..<days.count, using: &random) % (step % 7 == 0 ? days.count : 3)]
            let roll = Int.random(in: 0..<100, using: &random)
            let user = UserID(UInt64([1, 2, 3, 4, 99].randomElement(using: &random) ?? 1))
            let expected: Outcome
            let actual: Outcome
            let modelAnswer: String
            if roll < 70 {
                let hour = roll < 25 ? Int.random(in: 0...24, using: &random) : Int.random(in: 9...11, using: &random)
                let requestID: RequestID? =
                    Bool.random(using: &random) ? RequestID("r\(Int.random(in: 0..<12, using: &random))") : nil
                let reminder: Duration? =
                    [nil, nil, .seconds(600), .seconds(86_400 * 5), .seconds(-5)]
                    .randomElement(using: &random) ?? nil
                let request = ReservationRequest(
                    slot: Slot(station: station, socket: socket, date: date, hour: hour), user: user,
                    requestID: requestID, reminder: reminder)
                let modelResult = model.reserve(request, at: now)
                modelAnswer = Outcome.model(modelResult)
                do {
                    let booking = try ledger.reserve(request, at: now)
                    if !made.contains(booking.id) { made.append(booking.id) }
                    if case .success(let theirs) = modelResult { modelIDs[booking.id] = theirs.id }
                    expected = .booking(booking)
                } catch { expected = .refused(error) }
                do {
                    let booking = try await store.reserve(request, at: now)
                    if case .booking(let mine) = expected, ids.toLedger[booking.id] == nil {
                        ids.learn(store: booking.id, ledger: mine.id)
                    }
                    actual = .booking(ids.ledgerView(booking))
                } catch let rejection as Rejection { actual = .refused(ids.ledgerView(rejection)) }
            } else if roll < 85 {
                let ledgerID = made.isEmpty || roll == 70 ? BookingID(999_999) : made[step % made.count]
                let owner = ledger.booking(ledgerID)?.user ?? user
                let by = roll < 80 ? owner : user
                modelAnswer = Outcome.model(model.cancel(modelIDs[ledgerID] ?? BookingID(999_999), by: by, at: now))
                do { expected = .booking(try ledger.cancel(ledgerID, by: by, at: now)) } catch {
                    expected = .refused(error)
                }
                do {
                    let booking = try await store.cancel(ids.toStore[ledgerID] ?? ledgerID, by: by, at: now)
                    actual = .booking(ids.ledgerView(booking))
                } catch let rejection as Rejection { actual = .refused(ids.ledgerView(rejection)) }
            } else {
                let hours: HourSet? = [HourSet.closed, HourSet(8..<12), nil].randomElement(using: &random) ?? nil
                let change = AvailabilityChange(
                    station: station, socket: roll % 3 == 0 ? nil : socket, date: date, hours: hours)
                let rule: DisplacementRule = roll % 4 == 0 ? .refuse : .displace
                modelAnswer = Outcome.model(model.changeAvailability(change, rule: rule, at: now))
                do { expected = .bookings(try ledger.changeAvailability(change, onBookings: rule, at: now)) } catch {
                    expected = .refused(error)
                }
                do {
                    let displaced = try await store.changeAvailability(change, onBookings: rule, at: now)
                    actual = .bookings(displaced.map(ids.ledgerView))
                } catch let rejection as Rejection { actual = .refused(ids.ledgerView(rejection)) }
            }
            if case .refused(let r) = expected { reasons.insert(r.reason) }
            #expect(actual == expected, "step \(step) at \(now): store \(actual), ledger \(expected)")
            #expect(actual.asTheModelSeesIt == modelAnswer, "step \(step) at \(now): store \(actual)")
            if actual != expected || actual.asTheModelSeesIt != modelAnswer { break }
        }
        // The seeded sequence reaches most reasons; refusalReasonsMatchTheLedger covers the rest.
        #expect(
            reasons.count >= 15,
            "reasons never reached: \(Set(Rejection.Reason.allCases).subtracting(reasons).sorted())")

        let stored = try await store.allBookingsByID().map(ids.ledgerView).sorted { $0.id < $1.id }
        #expect(stored == ledger.allBookings)
        for user in [1, 2, 3, 4, 99] as [UserID] {
            let mine = try await store.bookings(of: user, at: now)
            let theirs = ledger.bookings(of: user, at: now)
            #expect(mine.upcoming.map(ids.ledgerView) == theirs.upcoming)
            #expect(mine.past.map(ids.ledgerView) == theirs.past)
        }
        for station in ["north", "south"] as [StationID] {
            for date in [Fixture.day, Fixture.day.adding(days: 1), Fixture.date("2030-03-31")] {
                let view = try await store.dayView(of: station, on: date, at: Fixture.now)
                #expect(view == (try ledger.dayView(of: station, on: date, at: Fixture.now)))
            }
        }
        // The queries every store answers: reminders due over windows, earliest free slots
        // under filters, as the ledger answers them. A few bookings with reminders first (the
        // sequence's own are cancelled or displaced by its end).
        for (offset, hour) in [(600, 13), (3_600, 14), (86_400, 15)] {
            let request = ReservationRequest(
                slot: Slot(station: "south", socket: "B", date: now.date.adding(days: 2), hour: hour),
                user: UserID(UInt64(50 + hour)), reminder: .seconds(offset))
            let mine = try await store.reserve(request, at: now)
            ids.learn(store: mine.id, ledger: try ledger.reserve(request, at: now).id)
        }
        let windows = [
            Fixture.now..<(Fixture.now + .seconds(86_400 * 60)), now..<(now + .seconds(3_600)), now..<now,
        ]
        for window in windows {
            let mine = try await store.remindersDue(in: window).map { reminder in
                var copy = reminder
                copy.booking = ids.toLedger[reminder.booking] ?? BookingID(0)
                return copy
            }
            #expect(mine == ledger.remindersDue(in: window), "reminders due in \(window)")
        }
        #expect(ledger.remindersDue(in: windows[0]).count >= 3, "the bookings above asked for reminders")
        let filters = [SlotFilter(), SlotFilter(searchDays: 1, limit: 1), SlotFilter(minimumPowerKW: 10_000)]
        for filter in filters {
            for at in [Fixture.now, now] {
                let mine = try await store.earliestFreeSlots(matching: filter, at: at)
                #expect(mine == ledger.earliestFreeSlots(matching: filter, at: at), "\(filter) at \(at)")
            }
        }
        #expect(invariantViolations(stored, rules: ledger.rules, at: now).isEmpty)
        await store.shutdown()
    }
}

extension Instant {
    /// The UTC date of this instant.
    var date: LocalDate {
        LocalDate(dayNumber: Int32((secondsSinceEpoch >= 0 ? secondsSinceEpoch : secondsSinceEpoch - 86_399) / 86_400))
    }
}
#endif
