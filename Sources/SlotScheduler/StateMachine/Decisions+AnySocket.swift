/// Any free socket: the decision shared by ``Ledger`` and ``Scheduler``.
///
/// A station's sockets all live in one book (one shard of a ``Scheduler``), so choosing the
/// socket and booking it are one step under the locks the caller holds: two any-socket requests
/// can never be given one socket, and every matching socket fills before the first refusal.
extension Decisions {
    /// Books the first free candidate of `request` for its user, checking, in order: request id,
    /// time rules (`Rules.checkTime`), a free candidate
    /// (``Rejection/Reason/noMatchingSocketFree``), then everything
    /// ``reserve(_:now:rules:slots:users:)`` checks on that candidate (the user's limit).
    ///
    /// A repeated request id returns the booking it made when that booking still satisfies the
    /// request (same station, date, hour and reminder, a matching socket); otherwise
    /// ``Rejection/Reason/conflictingRequestID``.
    /// - Complexity: O(*k*) in the station's matching sockets, plus what `reserve` costs.
    static func reserveAny(
        _ request: ResolvedAnySocket, now: Int64, rules: Rules, slots: inout SlotBook, users: inout UserBook
    ) -> Result<Reservation, Rejection> {
        let first = request.candidates[0]
        func refusal(_ reason: Rejection.Reason, start: Int64) -> Rejection {
            var rejection = rules.rejection(
                reason, ref: first, user: request.user, requestID: request.requestID, reminder: request.reminder,
                start: start, now: now)
            if reason == .noMatchingSocketFree { rejection.value = request.criteria }
            return rejection
        }
        if let seen = remembered(request.requestID, of: request.user, users: users) {
            guard seen.reminder == request.reminder, request.candidates.contains(seen.ref),
                let record = slots.record(of: seen.booking)
            else { return .failure(refusal(.conflictingRequestID, start: 0)) }
            return .success(
                Reservation(booking: slots.booking(record: record, catalog: rules.catalog), isReplay: true))
        }
        let (timeReason, start) = rules.checkTime(first, reminder: request.reminder, now: now)
        if let timeReason { return .failure(refusal(timeReason, start: start)) }
        if first.day < slots.releasedBefore { return .failure(refusal(.slotInPast, start: start)) }
        guard let chosen = firstFree(of: request.candidates, now: now, slots: &slots) else {
            return .failure(refusal(.noMatchingSocketFree, start: start))
        }
        return reserve(
            ResolvedRequest(ref: chosen, user: request.user, requestID: request.requestID, reminder: request.reminder),
            now: now, rules: rules, slots: &slots, users: &users)
    }

    /// The first of `candidates` (slots of one station, date and hour) that is open and neither
    /// booked nor held by a hold that lives at `now`.
    /// - Complexity: O(*k*) in the candidates.
    static func firstFree(of candidates: [SlotRef], now: Int64, slots: inout SlotBook) -> SlotRef? {
        guard let day = candidates.first?.day else { return nil }
        let page = slots.pageIndex(day)
        return candidates.first { ref in
            let word = slots.words[slots.wordIndex(ref, block: page)]
            return word.isOpen(ref.hour) && slots.takenReason(ref, word: word, now: now) == nil
        }
    }
}

/// An ``AnySocketRequest`` resolved against the catalog.
struct ResolvedAnySocket: Sendable {
    /// The matching sockets' slots, in catalog order; never empty.
    var candidates: [SlotRef]
    var user: UserID
    var requestID: RequestID?
    var reminder: Int64?
    /// What the request asks for, for refusals.
    var criteria: String
}

extension Rules {
    /// The slots an any-socket request may take, in catalog order, refusing what
    /// ``resolve(_:)-(ReservationRequest)`` refuses: ``Rejection/Reason/unknownStation``, then
    /// ``Rejection/Reason/unknownSocket`` when no socket of the station matches at all, then an
    /// invalid hour, an unsupported date, an invalid request id.
    /// - Complexity: O(*s* + *n*) in the station's sockets and the connector name's length (it is
    ///   normalized once).
    public func resolve(_ request: AnySocketRequest) throws(Rejection) -> [SlotRef] {
        let connector = request.connector.normalized
        func matches(_ socket: Socket) -> Bool { request.matches(socket, connector: connector) }
        guard let station = catalog.station(request.station),
            let first = station.sockets.firstIndex(where: matches)
        else {
            let value = catalog.station(request.station) == nil ? request.station.rawValue : request.criteria
            throw Rejection(
                catalog.station(request.station) == nil ? .unknownStation : .unknownSocket,
                slot: Slot(station: request.station, socket: "", date: request.date, hour: request.hour),
                user: request.user, value: IdentifierRule.shortened(value))
        }
        let firstRef = try resolve(
            ReservationRequest(
                slot: Slot(
                    station: request.station, socket: station.sockets[first].id, date: request.date,
                    hour: request.hour), user: request.user, requestID: request.requestID))
        // A station's flat socket indices are not contiguous after a catalog change added one.
        return station.sockets.indices.filter { $0 >= first && matches(station.sockets[$0]) }.map {
            let socket = catalog.socket(ofStation: firstRef.station, at: $0)
            return SlotRef(station: firstRef.station, socket: socket, day: firstRef.day, hour: firstRef.hour)
        }
    }

    /// ``resolve(_:)-(AnySocketRequest)`` with the request's other fields: what ``Decisions`` takes.
    func resolved(_ request: AnySocketRequest) throws(Rejection) -> ResolvedAnySocket {
        ResolvedAnySocket(
            candidates: try resolve(request), user: request.user, requestID: request.requestID,
            reminder: request.reminderSeconds, criteria: request.criteria)
    }
}
