import SlotScheduler

extension ReferenceModel {
    /// What a catalog change decides: the bookings it displaces (by index), and the holds it drops.
    package struct CatalogDecision: Equatable, Sendable {
        package var displaced: [Int]
        package var dropped: [Int]
    }

    /// A catalog change, the rules written out: a list with two stations of one id, or a station
    /// without sockets, is refused (the sequences send no other invalid list); a station that
    /// holds bookings not yet started or live holds keeps its time zone; the bookings not yet
    /// started on a socket the list leaves out, or in an hour its regular hours close on a date
    /// no availability change set to other hours than the regular ones, are displaced, or the
    /// change is refused under `.refuse`; the holds on such slots are dropped.
    package func decideCatalogChange(_ change: CatalogChange, rule: DisplacementRule, at now: Instant)
        -> ModelResult<CatalogDecision>
    {
        let ids = change.stations.map(\.id)
        guard Set(ids).count == ids.count, change.stations.allSatisfy({ !$0.sockets.isEmpty }) else {
            return .failure(.invalidCatalog)
        }
        let next = Dictionary(uniqueKeysWithValues: change.stations.map { ($0.id, $0) })
        let t = now.secondsSinceEpoch
        for station in stations.sorted(by: { $0.id < $1.id }) {
            guard let after = next[station.id], after.timeZone != station.timeZone else { continue }
            let booked = bookings.contains {
                $0.status == .active && $0.slot.station == station.id && $0.start.secondsSinceEpoch >= t
                    && !isReleased($0)
            }
            let held = holds.contains {
                $0.state == .held && $0.hold.slot.station == station.id && t < $0.hold.expiresAt.secondsSinceEpoch
            }
            if booked || held { return .failure(.timeZoneHasBookings) }
        }
        let displaced = bookings.indices.filter {
            bookings[$0].status == .active && bookings[$0].start.secondsSinceEpoch >= t && !isReleased(bookings[$0])
                && !staysOpen(bookings[$0].slot, under: next)
        }
        if rule == .refuse, !displaced.isEmpty { return .failure(.slotHasBookings) }
        let dropped = heldAt.values.sorted().filter { !staysOpen(holds[$0].hold.slot, under: next) }
        return .success(CatalogDecision(displaced: displaced, dropped: dropped))
    }

    /// Puts `change`'s list in service: displaces and drops what `decision` says, forgets the
    /// hours set on the sockets it leaves out and those set to the regular hours (those dates now
    /// follow the new regular hours), and takes `clock` for the stations it adds.
    package mutating func commitCatalogChange(
        _ change: CatalogChange, _ decision: CatalogDecision, clock: any ModelClock
    ) {
        for index in decision.displaced { end(index, as: .displaced) }
        for h in decision.dropped {
            holds[h].state = .released
            heldAt[holds[h].hold.slot] = nil
        }
        var nextRegular: [SocketKey: HourSet] = [:]
        for station in change.stations {
            for socket in station.sockets {
                nextRegular[SocketKey(station: station.id, socket: socket.id)] =
                    socket.openingHours ?? station.openingHours
            }
        }
        overrides = overrides.filter { key, hours in
            nextRegular[key.socket] != nil && hours != regular[key.socket]
        }
        regular = nextRegular
        for id in change.stations.map(\.id) where !stationOrder.contains(id) { stationOrder.append(id) }
        let listed = Dictionary(uniqueKeysWithValues: change.stations.map { ($0.id, $0) })
        stations = stationOrder.compactMap { listed[$0] }
        stationIndex = Dictionary(uniqueKeysWithValues: stations.enumerated().map { ($1.id, $0) })
        self.clock = clock
    }

    /// ``decideCatalogChange(_:rule:at:)``, then ``commitCatalogChange(_:_:clock:)`` when accepted:
    /// the bookings displaced (by id) and the holds dropped (by slot).
    package mutating func changeCatalog(
        _ change: CatalogChange, rule: DisplacementRule, at now: Instant, clock: any ModelClock
    ) -> ModelResult<(displaced: [Booking], dropped: [Hold])> {
        switch decideCatalogChange(change, rule: rule, at: now) {
        case .failure(let reason): return .failure(reason)
        case .success(let decision):
            let dropped = decision.dropped.map { holds[$0].hold }.sorted { $0.slot < $1.slot }
            commitCatalogChange(change, decision, clock: clock)
            return .success((decision.displaced.map { bookings[$0] }, dropped))
        }
    }

    /// Whether `slot` is open under the stations `next`: its socket is listed, and its date has
    /// hours an availability change set to other than the regular ones, or the new regular hours
    /// hold its hour.
    private func staysOpen(_ slot: Slot, under next: [StationID: Station]) -> Bool {
        guard let station = next[slot.station], let socket = station.sockets.first(where: { $0.id == slot.socket })
        else { return false }
        let key = SocketKey(station: slot.station, socket: slot.socket)
        if let set = overrides[SocketDate(socket: key, date: slot.date)], set != regular[key] { return true }
        return (socket.openingHours ?? station.openingHours).contains(slot.hour)
    }
}
