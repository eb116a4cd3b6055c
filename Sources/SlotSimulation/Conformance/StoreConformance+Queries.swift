import SlotScheduler

/// The queries of a conformance run: after every command one of them, and at the end every
/// booking, each compared with the model's answer.
extension StoreConformance {
    /// One query, drawn by weight.
    mutating func query() async throws {
        switch random.below(6) {
        case 0: try await userBookings(draw(Self.users))
        case 5: try await pages(draw(Self.users))
        case 1: try await oneBooking()
        case 2: try await dayView()
        case 3: try await holds()
        default: try await reminders()
        }
    }

    /// A user's bookings in their four lists: upcoming, fulfilled, no-show, cancelled.
    mutating func userBookings(_ user: UserID) async throws {
        let mine = try await store.bookings(of: user, at: now)
        let theirs = model.split(of: user, at: now)
        expect(
            "bookings of \(user)",
            store: .lists([mine.upcoming, mine.fulfilled, mine.noShow, mine.cancelled].map { $0.map(ids.model) }),
            model: .lists([theirs.upcoming, theirs.fulfilled, theirs.noShow, theirs.cancelled]))
    }

    /// One of a user's lists read a page at a time, one page past its end included: every page
    /// as the model's list cuts it.
    mutating func pages(_ user: UserID) async throws {
        let list = draw(BookingList.allCases)
        let split = model.split(of: user, at: now)
        let theirs = [split.upcoming, split.fulfilled, split.noShow, split.cancelled][
            BookingList.allCases.firstIndex(of: list) ?? 0]
        let limit = 1 + random.below(3)
        for offset in stride(from: 0, through: theirs.count, by: limit) {
            let mine = try await store.bookings(
                of: user, in: list, at: now, page: try PageRequest(offset: offset, limit: limit))
            let end = min(offset + limit, theirs.count)
            expect(
                "page \(offset)..<\(offset + limit) of \(list.rawValue) of \(user)",
                store: .page(mine.bookings.map(ids.model), hasMore: mine.hasMore),
                model: .page(Array(theirs[offset..<end]), hasMore: end < theirs.count))
        }
    }

    mutating func oneBooking() async throws {
        let id = bookingID()
        let mine = try await store.booking(ids.store(id)).map(ids.model)
        let theirs = model.bookings.indices.contains(Int(id.rawValue) - 1) ? model.bookings[Int(id.rawValue) - 1] : nil
        expect(
            "lookup \(id)", store: mine.map { .booking($0, isReplay: false) } ?? .none,
            model: theirs.map { .booking($0, isReplay: false) } ?? .none)
    }

    /// A station's day: every socket's every hour, as the model sees each slot.
    mutating func dayView() async throws {
        let slot = slot()
        let mine = try await store.dayView(of: slot.station, on: slot.date, at: now)
        let station = model.station(slot.station)
        let theirs = (station?.sockets ?? []).flatMap { socket in
            (0..<24).map { hour in
                model.status(of: Slot(station: slot.station, socket: socket.id, date: slot.date, hour: hour), at: now)
            }
        }
        expect(
            "day view \(slot.station) \(slot.date)", store: .statuses(mine.sockets.flatMap { $0.hours.map { $0 } }),
            model: .statuses(theirs))
    }

    mutating func holds() async throws {
        expect("live holds", store: .holds(try await store.holds(at: now)), model: .holds(model.liveHolds(at: now)))
    }

    /// The reminders due in the next six days, and in an empty window: by time, then the store's
    /// booking id (compared by time, then the model's).
    mutating func reminders() async throws {
        for window in [now..<(now + .seconds(86_400 * 6)), now..<now] {
            let mine = try await store.remindersDue(in: window)
            let order = { (a: Reminder, b: Reminder) in (a.fireAt, a.booking) < (b.fireAt, b.booking) }
            if mine != mine.sorted(by: order) {
                expect(
                    "reminders due in \(window), in order", store: .reminders(mine),
                    model: .reminders(mine.sorted(by: order)))
            }
            expect(
                "reminders due in \(window)", store: .reminders(mine.map(ids.model).sorted(by: order)),
                model: .reminders(model.remindersDue(in: window)))
        }
    }

    /// At the end: every booking ever made, and every user's lists.
    mutating func compareAll() async throws {
        let mine = try await store.allBookingsByID().map(ids.model).sorted { $0.id < $1.id }
        expect("every booking", store: .bookings(mine), model: .bookings(model.bookings))
        for user in Self.users { try await userBookings(user) }
    }
}
