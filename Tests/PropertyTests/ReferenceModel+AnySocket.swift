import SlotScheduler

extension ReferenceModel {
    /// Any free socket, by linear scan: the station's matching sockets in declaration order, the
    /// first one open and without an active booking at that hour; then the ordinary reserve of it.
    mutating func reserveAny(_ request: AnySocketRequest, at now: Instant) -> Result<Booking, Rejection.Reason> {
        guard let station = station(request.station) else { return .failure(.unknownStation) }
        let matching = station.sockets.filter {
            $0.connector.normalized == request.connector.normalized && $0.powerKW >= request.minimumPowerKW
        }
        guard !matching.isEmpty else { return .failure(.unknownSocket) }
        guard (0...23).contains(request.hour) else { return .failure(.invalidHour) }
        let slots = matching.map { Slot(station: station.id, socket: $0.id, date: request.date, hour: request.hour) }
        let reminder = request.reminder.map { $0.components.seconds }
        if let id = request.requestID, let seen = requests.first(where: { $0.user == request.user && $0.id == id }) {
            guard slots.contains(seen.slot), seen.reminder == reminder else { return .failure(.conflictingRequestID) }
            return .success(bookings[Int(seen.booking.rawValue) - 1])
        }
        let (reason, _) = timeCheck(slots[0], reminder: reminder, now: now.secondsSinceEpoch)
        if let reason { return .failure(reason) }
        let free = slots.first { slot in
            guard let open = self.station(slot.station).map({ openHours($0, slot.socket, on: slot.date) }) else {
                return false
            }
            return open.contains(slot.hour) && activeBooking(at: slot) == nil
                && liveHold(at: slot, now: now.secondsSinceEpoch) == nil
        }
        guard let free else { return .failure(.noMatchingSocketFree) }
        return reserve(
            ReservationRequest(
                slot: free, user: request.user, requestID: request.requestID, reminder: request.reminder),
            at: now)
    }
}
