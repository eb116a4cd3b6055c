import SlotScheduler

/// The lifecycle commands (issue 16) of a deterministic run: each through the ledger and the
/// ``ReferenceModel``, compared; a disagreement is the invariant it breaks (I13 any-socket,
/// I14 reschedule, I15-I17 holds).
extension DeterministicRun {
    /// The invariant a disagreement between the ledger and the model breaks.
    func lifecycleInvariant(
        _ kind: OpRecord.Kind, _ expected: Rejection.Reason?, _ actual: Rejection.Reason?, user: UInt64, now: Int64
    ) -> Invariant {
        let reasons = [expected, actual]
        // A limit the user's recent no-shows lowered: I19.
        if reasons.contains(.userLimitReached), model.limit(for: UserID(user), at: now) < model.limit(for: UserID(user))
        {
            return .I19
        }
        switch kind {
        case .anySocket: return .I13
        case .reschedule: return .I14
        case .checkIn: return .I18
        case .checkOut: return .I21
        default: break
        }
        if reasons.contains(.slotHeld) || reasons.contains(.slotTaken) { return .I15 }
        if reasons.contains(.holdExpired) || reasons.contains(.unknownHold) { return .I16 }
        if reasons.contains(.userLimitReached) || reasons.contains(.holdLimitReached) { return .I17 }
        return .I10
    }

    /// Counts and records a lifecycle command's outcome and reports a disagreement with the model.
    mutating func judge(
        _ kind: OpRecord.Kind, what: String, user: UInt64, cell: Int32, now: Int64, booking: UInt64 = 0,
        expected: Rejection.Reason?, actual: Rejection.Reason?, detail: OpRecord.Detail = .none
    ) {
        record(
            OpRecord(
                seq: seq, now: now, kind: kind, user: user, cell: cell, booking: booking, outcome: Reasons.code(actual),
                detail: detail))
        if let actual { refused[Int(Reasons.code(actual))] += 1 }
        guard expected != actual else { return }
        violate(
            lifecycleInvariant(kind, expected, actual, user: user, now: now),
            "\(what) by user \(user) gave \(actual?.rawValue ?? "acceptance") where the rules say \(expected?.rawValue ?? "accepted")"
        )
    }

    static func reason<T>(_ result: ModelResult<T>) -> Rejection.Reason? {
        if case .failure(let reason) = result { return reason }
        return nil
    }

    /// The cell of a slot of the scenario's domain, or -1.
    func cell(of slot: Slot) -> Int32 { p.cell(of: slot) ?? -1 }

    /// A booking the ledger made in a lifecycle command: kept in step with the model's, whose
    /// id must be the same (the model follows the ledger when it had refused).
    mutating func made(_ booking: Booking, modelAccepted: Bool, cell: Int32, now: Int64) {
        if !modelAccepted {
            model.commitReserve(
                ReservationRequest(slot: booking.slot, user: booking.user), at: Instant(secondsSinceEpoch: now))
        }
        bookingCell.append(cell)
        pools.add(UInt64(bookingCell.count), of: booking.user.rawValue, cell: cell)
        if booking.id.rawValue != UInt64(bookingCell.count) {
            violate(.I10, "the ledger numbered booking \(booking.id) where the model has \(bookingCell.count)")
        }
    }

    @discardableResult
    mutating func hold(cell: Int32, userID: UInt64, now: Int64) -> Rejection.Reason? {
        let at = Instant(secondsSinceEpoch: now)
        let slot = p.slot(ofCell: cell)
        let expected = Self.reason(model.hold(slot, for: UserID(userID), reminder: nil, at: at))
        var actual: Rejection.Reason?
        do { _ = try ledger.hold(slot, for: UserID(userID), at: at) } catch { actual = error.reason }
        if actual == nil {
            lifecycle.holds += 1
            pools.rememberHold(.init(user: userID, cell: cell), rng: &rng)
        }
        judge(.hold, what: "hold of \(slot)", user: userID, cell: cell, now: now, expected: expected, actual: actual)
        return actual
    }

    @discardableResult
    mutating func confirm(cell: Int32, userID: UInt64, now: Int64) -> (Rejection.Reason?, UInt64) {
        let at = Instant(secondsSinceEpoch: now)
        let slot = p.slot(ofCell: cell)
        let before = model.bookings.count
        let modelResult = model.confirm(slot, by: UserID(userID), at: at)
        let expected = Self.reason(modelResult)
        var actual: Rejection.Reason?
        var booking: Booking?
        do { booking = try ledger.confirm(slot, by: UserID(userID), at: at) } catch { actual = error.reason }
        if let booking, booking.id.rawValue > UInt64(bookingCell.count) {
            lifecycle.confirmed += 1
            made(booking, modelAccepted: model.bookings.count > before, cell: cell, now: now)
        }
        judge(
            .confirm, what: "confirm of \(slot)", user: userID, cell: cell, now: now,
            booking: booking?.id.rawValue ?? 0, expected: expected, actual: actual)
        return (actual, booking?.id.rawValue ?? 0)
    }

    @discardableResult
    mutating func releaseHold(cell: Int32, userID: UInt64, now: Int64) -> Rejection.Reason? {
        let at = Instant(secondsSinceEpoch: now)
        let slot = p.slot(ofCell: cell)
        let expected = Self.reason(model.releaseHold(slot, by: UserID(userID), at: at))
        var actual: Rejection.Reason?
        do { _ = try ledger.releaseHold(slot, by: UserID(userID), at: at) } catch { actual = error.reason }
        if actual == nil { lifecycle.releasedHolds += 1 }
        judge(
            .releaseHold, what: "release of the hold of \(slot)", user: userID, cell: cell, now: now,
            expected: expected, actual: actual)
        return actual
    }

    /// Moves booking `booking` to `cell`; the ledger and the model must agree and, when they
    /// accept, leave the booking at the new slot only (I14).
    @discardableResult
    mutating func reschedule(booking: UInt64, to cell: Int32, userID: UInt64, requestID: RequestID?, now: Int64)
        -> Rejection.Reason?
    {
        let at = Instant(secondsSinceEpoch: now)
        let slot = p.slot(ofCell: cell)
        let request = RescheduleRequest(
            booking: BookingID(booking), user: UserID(userID), to: slot, requestID: requestID)
        let expected = Self.reason(model.reschedule(request, at: at))
        var actual: Rejection.Reason?
        do { _ = try ledger.reschedule(request, at: at) } catch { actual = error.reason }
        if actual == nil, let b = modelIndex(of: booking) {
            let from = bookingCell[Int(b)]
            if from != cell {
                lifecycle.rescheduled += 1
                cells[Int(from)].freed = true
                bookingCell[Int(b)] = cell
                if pools.cellOf[booking] != nil { pools.cellOf[booking] = cell }
                if ledger.status(of: cells[Int(from)].ref, at: at) == .booked
                    && model.activeBooking(at: p.slot(ofCell: from)) == nil
                {
                    violate(
                        .I14,
                        "booking \(booking) moved to \(slot) but its old slot \(p.slot(ofCell: from)) is still booked")
                }
            }
        }
        judge(
            .reschedule, what: "reschedule of booking \(booking) to \(slot)", user: userID, cell: cell, now: now,
            booking: booking, expected: expected, actual: actual)
        return actual
    }

    /// Checks booking `booking` in; the ledger and the model must agree (I18: the window).
    @discardableResult
    mutating func checkIn(booking: UInt64, userID: UInt64, accessCode: String? = nil, now: Int64)
        -> Rejection.Reason?
    {
        let at = Instant(secondsSinceEpoch: now)
        let expected = Self.reason(
            model.checkIn(BookingID(booking), by: UserID(userID), accessCode: accessCode, at: at))
        var actual: Rejection.Reason?
        var checked: Booking?
        do {
            checked = try ledger.checkIn(BookingID(booking), by: UserID(userID), accessCode: accessCode, at: at)
        } catch {
            actual = error.reason
        }
        if let checked, checked.checkedInAt == at {
            lifecycle.checkedIn += 1
            pools.rememberCheckIn(.init(booking: booking, owner: userID), rng: &rng)
        }
        let cell = modelIndex(of: booking).map { bookingCell[Int($0)] } ?? -1
        judge(
            .checkIn, what: "check-in of booking \(booking)", user: userID, cell: cell, now: now, booking: booking,
            expected: expected, actual: actual)
        return actual
    }

    /// Checks booking `booking` out, leaving its resource at `place` when given; the ledger and
    /// the model must agree (I21), and an accepted check-out leaves the booking fulfilled with its
    /// session's times in order (its slot is free in the model, so a later reservation of it is
    /// compared too) and its station where it was left, in the ledger's catalog as in the model's.
    @discardableResult
    mutating func checkOut(booking: UInt64, userID: UInt64, leftAt place: Coordinate? = nil, now: Int64)
        -> Rejection.Reason?
    {
        let at = Instant(secondsSinceEpoch: now)
        let expected = Self.reason(model.checkOut(BookingID(booking), by: UserID(userID), at: at))
        var actual: Rejection.Reason?
        do {
            let ended = try ledger.checkOut(BookingID(booking), by: UserID(userID), at: at)
            lifecycle.checkedOut += 1
            if let b = modelIndex(of: booking) { self.ended(b) }
            pools.checkedIn.removeAll { $0.booking == booking }
            if ended.status != .fulfilled || ended.checkedOutAt != at || ended.checkedInAt == nil {
                violate(
                    .I21,
                    "booking \(booking) checked out at \(now) reads \(ended.status), checked in "
                        + "\(ended.checkedInAt.map { String($0.secondsSinceEpoch) } ?? "never")")
            }
            // Moved in both when the ledger checked out (a refusal by the model is judged below).
            if let place { relocate(ended.slot.station, to: place, at: at) }
        } catch {
            actual = error.reason
        }
        let cell = modelIndex(of: booking).map { bookingCell[Int($0)] } ?? -1
        judge(
            .checkOut, what: "check-out of booking \(booking)", user: userID, cell: cell, now: now, booking: booking,
            expected: expected, actual: actual, detail: place.map { .text($0.leftAtDetail) } ?? .none)
        return actual
    }

    /// Moves `station` to `place` in the ledger and the model (a check-out's relocation): both
    /// accept, and the ledger's catalog then places it where the model does (I21).
    mutating func relocate(_ station: StationID, to place: Coordinate, at: Instant) {
        do {
            try ledger.relocate(station, to: place, at: at)
            lifecycle.relocated += 1
        } catch {
            violate(.I21, "the relocation of \(station) to \(place.pair) was refused: \(error)")
        }
        relocateModel(station, to: place, at: at)
        let mine = ledger.rules.catalog.station(station)?.coordinate
        let theirs = model.stations.first { $0.id == station }?.coordinate
        if mine != theirs {
            violate(
                .I21,
                "station \(station) is at \(Coordinate.describe(mine)) after a "
                    + "check-out left it at \(place.pair)")
        }
    }

    /// The model's relocation of `station` to `place`: the change that moves it alone.
    mutating func relocateModel(_ station: StationID, to place: Coordinate, at: Instant) {
        guard let index = model.stations.firstIndex(where: { $0.id == station }) else { return }
        var moved = model.stations
        moved[index].coordinate = place
        _ = model.changeCatalog(
            CatalogChange(stations: moved), rule: .refuse, at: at, clock: CatalogClock(p.rules.catalog))
    }

    @discardableResult
    mutating func reserveAny(_ request: AnySocketRequest, now: Int64) -> (Rejection.Reason?, UInt64) {
        let at = Instant(secondsSinceEpoch: now)
        let before = model.bookings.count
        let modelResult = model.reserveAny(request, at: at)
        let expected = Self.reason(modelResult)
        var actual: Rejection.Reason?
        var booking: Booking?
        do { booking = try ledger.reserve(request, at: at) } catch { actual = error.reason }
        var cell: Int32 = -1
        if let booking {
            cell = self.cell(of: booking.slot)
            if booking.id.rawValue > UInt64(bookingCell.count) {
                lifecycle.anySocket += 1
                made(booking, modelAccepted: model.bookings.count > before, cell: cell, now: now)
            }
            if case .success(let want) = modelResult, want.slot != booking.slot {
                violate(
                    .I13, "an any-socket request was given \(booking.slot) where the first free match is \(want.slot)")
            }
        }
        judge(
            .anySocket, what: "any-socket request at \(request.station) \(request.date) \(request.hour):00",
            user: request.user.rawValue, cell: cell, now: now, booking: booking?.id.rawValue ?? 0,
            expected: expected, actual: actual)
        return (actual, booking?.id.rawValue ?? 0)
    }
}
