import SlotScheduler

/// The commands of a conformance run: each drawn once, sent to the store, then applied to the
/// model, and the two answers compared.
extension StoreConformance {
    static let users: [UserID] = [1, 2, 3, 4, 99]
    static let requestIDs: [RequestID?] = [nil, nil, nil, nil] + (0..<24).map { RequestID("r\($0)") }
    static let reminders: [Duration?] = [
        nil, nil, nil, .seconds(600), .seconds(1_800), .seconds(3_600), .seconds(7_200), .seconds(86_400 * 5),
        .seconds(-5),
    ]

    /// One command, drawn by weight.
    mutating func command() async throws {
        let roll = random.below(100)
        switch roll {
        case 0..<30: try await reserve()
        case 30..<38: try await reserveAny()
        case 38..<48: try await hold()
        case 48..<56: try await confirmOrRelease(confirm: roll < 52)
        case 56..<63: try await reschedule()
        case 63..<75: try await cancel()
        case 75..<86: try await checkIn()
        case 86..<90: try await checkOut()
        default: try await changeAvailability()
        }
    }

    mutating func draw<T>(_ list: [T]) -> T { list[random.below(list.count)] }

    /// A slot near `now`: mostly the next three local days in open hours, sometimes past, beyond
    /// the horizon, at an hour that does not exist (the change to summer time) or out of range.
    mutating func slot() -> Slot {
        let station = draw(Self.stations)
        let socket = draw(station.sockets).id
        let today = store.rules.catalog.localDate(of: station.id, at: now) ?? LocalDate(dayNumber: 0)
        let offset = random.chance(0.1) ? draw([-1, 15, 20]) : random.below(3)
        let hour = random.chance(0.15) ? random.below(25) : 6 + random.below(16)
        return Slot(station: station.id, socket: socket, date: today.adding(days: offset), hour: hour)
    }

    /// A booking id the model issued (the store's for it), or now and then one nobody issued.
    mutating func bookingID() -> BookingID {
        guard !model.bookings.isEmpty, !random.chance(0.05) else { return MatchedIDs.unknown }
        // Mostly the recent ones, whose slots are still ahead.
        let recent = max(0, model.bookings.count - 12)
        return BookingID(UInt64(recent + random.below(model.bookings.count - recent) + 1))
    }

    /// The store's answer to a call that gives a booking, or its refusal.
    func answer(_ call: () async throws -> Reservation) async throws -> Answer {
        try await Answer.store(call) { .booking($0.booking, isReplay: $0.isReplay) }
    }

    /// The model's answer to a command that gives a booking: a replay when it made none.
    mutating func modelAnswer(_ command: (inout ReferenceModel) -> ModelResult<Booking>) -> Answer {
        let before = model.bookings.count
        let result = command(&model)
        return Answer.model(result) { .booking($0, isReplay: model.bookings.count == before) }
    }

    /// Compares a command that gives a booking, pairing a booking new to both.
    mutating func compare(_ command: String, store: Answer, model: Answer) {
        var store = store
        if case .booking(let mine, let replay) = store {
            if case .booking(let theirs, _) = model { ids.pair(store: mine.id, model: theirs.id) }
            store = .booking(ids.model(mine), isReplay: replay)
        }
        expect(command, store: store, model: model)
    }

    /// The latest hold that lives at `now`, if any.
    var liveHold: Hold? {
        let now = now
        return model.holds.last { $0.state == .held && $0.hold.expiresAt > now }?.hold
    }

    /// A reservation, now and then of a slot someone holds.
    mutating func reserve() async throws {
        let held = random.chance(0.15) ? liveHold?.slot : nil
        let request = ReservationRequest(
            slot: held ?? slot(), user: draw(Self.users), requestID: draw(Self.requestIDs),
            reminder: draw(Self.reminders))
        let now = now
        let mine = try await answer { try await store.book(request, at: now) }
        let theirs = modelAnswer { $0.reserve(request, at: now) }
        compare("reserve \(request)", store: mine, model: theirs)
        if request.requestID != nil, case .booking(let made, isReplay: false) = theirs {
            reservedWith[made.id] = request
        }
    }

    mutating func reserveAny() async throws {
        let slot = slot()
        let connector = draw([ConnectorType.ccs, .type2, .chademo])
        let request = AnySocketRequest(
            station: slot.station, connector: connector, minimumPowerKW: draw([0, 20, 100]), date: slot.date,
            hour: slot.hour, user: draw(Self.users), requestID: draw(Self.requestIDs), reminder: draw(Self.reminders))
        let now = now
        let mine = try await answer { try await store.book(request, at: now) }
        compare("any-socket \(request)", store: mine, model: modelAnswer { $0.reserveAny(request, at: now) })
    }

    mutating func reschedule() async throws {
        let id = bookingID()
        let booking = model.bookings.indices.contains(Int(id.rawValue) - 1) ? model.bookings[Int(id.rawValue) - 1] : nil
        var to = slot()
        // Mostly within the booking's station, a day later at most.
        if let booking, random.chance(0.75) {
            let sockets = model.station(booking.slot.station)?.sockets ?? []
            to = Slot(
                station: booking.slot.station, socket: sockets.isEmpty ? booking.slot.socket : draw(sockets).id,
                date: booking.slot.date.adding(days: random.below(2)), hour: 6 + random.below(16))
        }
        let request = RescheduleRequest(
            booking: id, user: random.chance(0.9) ? booking?.user ?? 1 : draw(Self.users), to: to,
            requestID: draw(Self.requestIDs))
        var sent = request
        sent.booking = ids.store(id)
        let now = now
        // The model does not tell a repeated move from a new one.
        let mine = try await answer { try await store.reschedule(sent, at: now) }.withoutReplay
        let theirs = modelAnswer { $0.reschedule(request, at: now) }.withoutReplay
        compare("reschedule \(request)", store: mine, model: theirs)
        // Its reservation sent again gives the booking where it is now (no draw: the run's
        // sequence stays the same).
        if case .booking = theirs, let original = reservedWith[id] {
            let again = try await answer { try await store.book(original, at: now) }
            compare(
                "reserve \(original) again after its booking moved", store: again,
                model: modelAnswer { $0.reserve(original, at: now) })
        }
    }

    mutating func cancel() async throws {
        try await ownedCommand("cancel") { store, id, user, now in
            try await store.cancel(id, by: user, at: now)
        } model: { model, id, user, now in
            model.cancel(id, by: user, at: now)
        }
    }

    /// A check-in, mostly near the booking's start: the clock moves on to its window when that
    /// lies ahead.
    mutating func checkIn() async throws {
        try await ownedCommand("check-in", approach: true) { store, id, user, now in
            try await store.checkIn(id, by: user, at: now)
        } model: { model, id, user, now in
            model.checkIn(id, by: user, at: now)
        }
    }

    /// A check-out, mostly of a booking the model holds checked in and active.
    mutating func checkOut() async throws {
        let sessions = model.bookings.filter { $0.status == .active && $0.checkedInAt != nil }
        try await ownedCommand("check-out", pick: sessions.isEmpty || random.chance(0.2) ? nil : draw(sessions).id) {
            store, id, user, now in
            try await store.checkOut(id, by: user, at: now)
        } model: { model, id, user, now in
            model.checkOut(id, by: user, at: now)
        }
    }

    /// A cancel, check-in or check-out of a booking (`pick`, or one drawn), mostly by its owner.
    mutating func ownedCommand(
        _ name: String, approach: Bool = false, pick: BookingID? = nil,
        store call: (any BookingService, BookingID, UserID, Instant) async throws -> Booking,
        model command: (inout ReferenceModel, BookingID, UserID, Instant) -> ModelResult<Booking>
    ) async throws {
        let id = pick ?? bookingID()
        let booking = model.bookings.indices.contains(Int(id.rawValue) - 1) ? model.bookings[Int(id.rawValue) - 1] : nil
        let owner = booking?.user ?? 1
        if approach, let booking, random.chance(0.7) {
            let at = booking.start + .seconds(Int64(random.below(2_700)) - 1_200)
            if at > now { now = at }
        }
        let user = random.chance(0.9) ? owner : draw(Self.users)
        let (now, sent, store) = (now, ids.store(id), store)
        let mine = try await answer { Reservation(booking: try await call(store, sent, user, now), isReplay: false) }
        compare(
            "\(name) \(id) by \(user)", store: mine,
            model: modelAnswer { model in command(&model, id, user, now) }.withoutReplay)
    }

    /// A hold; most accepted ones are confirmed or released a few minutes later, as a user would.
    mutating func hold() async throws {
        // Now and then by a user who holds another slot already.
        let holder = random.chance(0.5) ? liveHold?.user : nil
        let (slot, user) = (slot(), holder ?? draw(Self.users))
        guard try await hold(slot, for: user, reminder: draw(Self.reminders)) else { return }
        if random.chance(0.25) {
            // A second hold while the first lives: over the hold limit, unless refused sooner.
            let next = Slot(
                station: slot.station, socket: slot.socket, date: slot.date, hour: slot.hour < 21 ? slot.hour + 1 : 6)
            _ = try await hold(next, for: user, reminder: nil)
        }
        guard random.chance(0.6) else { return }
        now = now + .seconds(Int64(random.below(1_200)))
        try await settle(slot, by: user, confirm: random.chance(0.6))
    }

    /// Holds `slot` for `user` in the store and the model; whether the model accepted.
    mutating func hold(_ slot: Slot, for user: UserID, reminder: Duration?) async throws -> Bool {
        let now = now
        let mine = try await Answer.store(
            { try await store.hold(slot, for: user, reminder: reminder, at: now) }, Answer.hold)
        let theirs = Answer.model(
            model.hold(slot, for: user, reminder: reminder.map { $0.components.seconds }, at: now), Answer.hold)
        expect("hold \(slot) for \(user)", store: mine, model: theirs)
        if case .hold = theirs { return true }
        return false
    }

    /// A confirm or release of the latest live hold (mostly by its holder), or of any slot.
    mutating func confirmOrRelease(confirm: Bool) async throws {
        var (slot, user) = (slot(), draw(Self.users))
        if let held = liveHold, random.chance(0.8) {
            slot = held.slot
            if random.chance(0.9) { user = held.user }
        }
        try await settle(slot, by: user, confirm: confirm)
    }

    /// Confirms or releases the hold of `slot` by `user`.
    mutating func settle(_ slot: Slot, by user: UserID, confirm: Bool) async throws {
        let now = now
        if confirm {
            let mine = try await answer {
                Reservation(booking: try await store.confirm(slot, by: user, at: now), isReplay: false)
            }
            compare(
                "confirm \(slot) by \(user)", store: mine,
                model: modelAnswer { $0.confirm(slot, by: user, at: now) }.withoutReplay)
            return
        }
        let mine = try await Answer.store({ try await store.releaseHold(slot, by: user, at: now) }, Answer.hold)
        let theirs = Answer.model(model.releaseHold(slot, by: user, at: now), Answer.hold)
        expect("release-hold \(slot) by \(user)", store: mine, model: theirs)
    }

    mutating func changeAvailability() async throws {
        let slot = slot()
        let change = AvailabilityChange(
            station: slot.station, socket: random.chance(0.3) ? nil : slot.socket, date: slot.date,
            hours: draw([HourSet.closed, HourSet(8..<12), nil]))
        let rule = draw([DisplacementRule.displace, .refuse])
        let now = now
        let mine = try await Answer.store({ try await store.changeAvailability(change, onBookings: rule, at: now) }) {
            .bookings($0.map(ids.model))
        }
        let theirs = Answer.model(model.changeAvailability(change, rule: rule, at: now), Answer.bookings)
        expect("change \(change) (\(rule.rawValue))", store: mine, model: theirs)
    }
}

extension Answer {
    /// The store's answer: what `call` returned, as `wrap` says, or its refusal. Other errors
    /// (a lost connection) are thrown.
    static func store<T>(_ call: () async throws -> T, _ wrap: (T) -> Answer) async throws -> Answer {
        do { return wrap(try await call()) } catch let rejection as Rejection { return .refused(rejection.reason) }
    }

    /// The model's answer: its value, as `wrap` says, or its refusal.
    static func model<T>(_ result: ModelResult<T>, _ wrap: (T) -> Answer) -> Answer {
        switch result {
        case .success(let value): wrap(value)
        case .failure(let reason): .refused(reason)
        }
    }

    /// The answer of a command that never replays (a cancel, a check-in, a confirm).
    var withoutReplay: Answer {
        if case .booking(let booking, _) = self { return .booking(booking, isReplay: false) }
        return self
    }
}
