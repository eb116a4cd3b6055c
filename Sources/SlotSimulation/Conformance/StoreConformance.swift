import SlotScheduler

/// Whether a store keeps the rules: one seeded sequence of every command of the booking
/// lifecycle (reserve, any socket, hold, confirm, release a hold, reschedule, cancel, check-in,
/// availability changes) and every query (a user's bookings, one booking, day views, live holds,
/// reminders due, every booking), sent to the store and to the ``ReferenceModel``, and each
/// answer compared with the model's.
///
/// The same sequence runs against `Scheduler`, `JournalStore` and `PostgresBookingService`
/// (`Tests/JournalTests/ConformanceTests.swift`, `Tests/PostgresTests/ConformanceTests.swift`):
/// the model is what every store is held to, so no store's test states the rules again. The store
/// must be opened with ``stations`` and ``policy``; booking ids are the store's own and are
/// matched with the model's as bookings appear.
package struct StoreConformance {
    /// Two stations in London's zone (the sequence crosses the change to summer time on
    /// 2030-03-31): sockets with their own hours and connectors, station hours, one socket open
    /// at night only.
    package static let stations: [Station] = [
        Station(
            id: "north", name: "North", city: "Leeds", timeZone: "Europe/London",
            sockets: [
                Socket(id: "1", connector: .ccs, powerKW: 150),
                Socket(id: "2", connector: .type2, powerKW: 22),
                Socket(id: "3", connector: .type2, powerKW: 22),
                Socket(id: "night", connector: .type2, powerKW: 11, openingHours: HourSet(0..<6)),
            ], openingHours: HourSet(6..<22)),
        Station(
            id: "south", name: "South", city: "Brighton", timeZone: "Europe/London",
            sockets: [Socket(id: "A", connector: .ccs, powerKW: 50), Socket(id: "B", connector: .chademo, powerKW: 50)]),
    ]

    /// Every rule switched on: a limit with one user's own, a rolling horizon, notice, cutoffs,
    /// holds, a check-in window and a no-show limit.
    package static let policy = Policy(
        maxUpcomingBookings: 3, horizon: .rollingDays(14), minimumNotice: .seconds(1_800),
        cancellationCutoff: .seconds(3_600), userLimits: [.init(user: 99, limit: 1)],
        rescheduleCutoff: .seconds(2_700), hold: .seconds(900), maxHoldsPerUser: 1, earlyCheckIn: .seconds(900),
        noShowGrace: .seconds(1_200), noShowLimit: .init(noShows: 1, days: 7, limit: 2))

    /// Where the sequence begins: 2030-03-28 06:00 UTC, three days before summer time.
    package static let start = Instant(secondsSinceEpoch: 1_900_908_000)

    /// A command or query on which the store and the model answered differently.
    package struct Disagreement: Sendable, CustomStringConvertible {
        package var step: Int
        package var at: Instant
        package var command: String
        package var store: String
        package var model: String
        package var description: String {
            "step \(step) at \(at), \(command): the store answered \(store), the model \(model)"
        }
    }

    let store: any BookingService
    var model: ReferenceModel
    var ids = MatchedIDs()
    var random: SplitMix64
    var now = StoreConformance.start
    var step = 0
    var disagreements: [Disagreement] = []
    /// The reservation with a request id that made each booking (the model's id): sent again
    /// after the booking moves.
    var reservedWith: [BookingID: ReservationRequest] = [:]
    /// How often the model accepted each command and refused it for each reason: what the run
    /// reached.
    var reached: [String: Int] = [:]

    /// What a run found: every disagreement, in order (empty: the store kept the rules), and how
    /// often the model accepted each command or refused it for each reason (what the sequence
    /// reached, by name: `reserve accepted`, `hold refused slotHeld`).
    package struct Result: Sendable {
        package var disagreements: [Disagreement]
        package var reached: [String: Int]

        /// The commands the model never accepted, of those every run should reach.
        package var commandsNeverAccepted: [String] {
            StoreConformance.commands.filter { reached["\($0) accepted", default: 0] == 0 }
        }
        /// The refusal reasons reached, by name, sorted.
        package var reasons: [String] {
            Set(reached.keys.filter { $0.contains(" refused ") }.map { String($0.split(separator: " ")[2]) })
                .sorted()
        }
    }

    /// The refusal reasons that seeds 1, 2 and 3 reach together: what the conformance tests ask
    /// of those runs, so that a change to the sequence cannot quietly stop testing a rule.
    package static let reasonsOfSeeds1To3: Set<String> = [
        "alreadyCancelled", "beyondHorizon", "cancellationCutoffPassed", "checkInClosed", "checkInNotOpen",
        "conflictingRequestID", "holdExpired", "holdLimitReached", "invalidHour", "invalidReminder",
        "noMatchingSocketFree", "notOwner", "outsideOpeningHours", "reminderInPast", "rescheduleCutoffPassed",
        "rescheduleToOtherStation", "slotHasBookings", "slotHeld", "slotInPast", "slotTaken", "socketClosed",
        "tooSoon", "unknownBooking", "unknownHold", "unknownSocket", "userLimitReached",
    ]

    /// The commands of the sequence, by the names the results use.
    package static let commands = [
        "reserve", "any-socket", "hold", "confirm", "release-hold", "reschedule", "cancel", "check-in", "change",
    ]

    /// Runs `steps` commands, each followed by a query, on `store` and on the model; returns
    /// what it found. With `catalogChanges`, catalog changes and relocations too (see
    /// `StoreConformance+Catalog.swift`):
    /// not for a `Scheduler`, whose catalog is fixed. Errors other than refusals (a lost
    /// connection) are thrown.
    package static func run(
        _ store: any BookingService, seed: UInt64, steps: Int, catalogChanges: Bool = false
    ) async throws -> Result {
        var run = StoreConformance(store: store, seed: seed)
        for _ in 0..<steps {
            if catalogChanges {
                try await run.changeCatalogIfDue()
                try await run.relocateIfDue()
            }
            // Minutes mostly (holds live 15), now and then hours.
            let hours = run.random.chance(0.03) ? Int64(run.random.below(12) * 3_600) : 0
            run.now = run.now + .seconds(Int64(run.random.below(300)) + hours)
            try await run.command()
            try await run.query()
            run.step += 1
        }
        try await run.compareAll()
        return Result(disagreements: run.disagreements, reached: run.reached)
    }

    init(store: any BookingService, seed: UInt64) {
        self.store = store
        model = ReferenceModel(
            stations: store.rules.catalog.stations, policy: store.rules.policy, clock: CatalogClock(store.rules.catalog)
        )
        random = SplitMix64(seed: seed)
    }

    mutating func expect(_ command: String, store: Answer, model: Answer) {
        let kind = command.prefix { $0 != " " }
        switch model {
        case .refused(let reason): reached["\(kind) refused \(reason.rawValue)", default: 0] += 1
        case .booking, .hold, .catalogChanged,
            .bookings where kind != "lookup" && kind != "every":
            reached["\(kind) accepted", default: 0] += 1
        default: break
        }
        guard store != model else { return }
        disagreements.append(
            Disagreement(step: step, at: now, command: command, store: "\(store)", model: "\(model)"))
    }
}

/// One answer, of the store or of the model, with the store's booking ids as the model's.
enum Answer: Equatable, CustomStringConvertible {
    case booking(Booking, isReplay: Bool)
    case bookings([Booking])
    case hold(Hold)
    case holds([Hold])
    case refused(Rejection.Reason)
    case lists([[Booking]])
    case page([Booking], hasMore: Bool)
    case statuses([SlotStatus?])
    case reminders([Reminder])
    /// A catalog change: the bookings it displaced, by id, and the holds it dropped, by slot.
    case catalogChanged(displaced: [Booking], dropped: [Hold])
    /// Where a station is (its coordinate), after a relocation.
    case place(Coordinate?)
    case none

    var description: String {
        switch self {
        case .booking(let b, let replay):
            "booking \(b.id) \(b.slot) user \(b.user) \(b.status.rawValue)\(replay ? " (replay)" : "")"
        case .bookings(let list): "bookings \(list.map { "\($0.id) \($0.status.rawValue)" })"
        case .hold(let h): "hold \(h.slot) user \(h.user) until \(h.expiresAt)"
        case .holds(let list): "holds \(list.map { "\($0.slot) user \($0.user)" })"
        case .refused(let reason): "refused \(reason.rawValue)"
        case .lists(let lists): "lists \(lists.map { $0.map(\.id) })"
        case .page(let list, let more): "page \(list.map(\.id))\(more ? " and more" : "")"
        case .statuses(let list): "statuses \(list.map { $0?.rawValue ?? "nil" })"
        case .reminders(let list): "reminders \(list.map { "\($0.booking) at \($0.fireAt)" })"
        case .catalogChanged(let displaced, let dropped):
            "catalog changed, displaced \(displaced.map(\.id)), dropped \(dropped.map { "\($0.slot) user \($0.user)" })"
        case .place(let at): at.map { "at " + $0.pair } ?? "nowhere"
        case .none: "nothing"
        }
    }
}

/// The store's booking ids and the model's (booking `i` of the model has id `i + 1`), paired as
/// bookings appear.
struct MatchedIDs {
    private var toModel: [BookingID: BookingID] = [:]
    private var toStore: [BookingID: BookingID] = [:]

    /// An id that names nothing in either.
    static let unknown = BookingID(9_000_000_000)

    mutating func pair(store: BookingID, model: BookingID) {
        guard toModel[store] == nil, toStore[model] == nil else { return }
        toModel[store] = model
        toStore[model] = store
    }
    func store(_ model: BookingID) -> BookingID { toStore[model] ?? Self.unknown }
    func model(_ booking: Booking) -> Booking {
        var copy = booking
        copy.id = toModel[booking.id] ?? Self.unknown
        return copy
    }
    func model(_ reminder: Reminder) -> Reminder {
        var copy = reminder
        copy.booking = toModel[reminder.booking] ?? Self.unknown
        return copy
    }
}
