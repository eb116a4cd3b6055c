import SlotScheduler

/// The catalog changes of a conformance run: at steps 50, 150, 250, … a change from a fixed
/// rotation (it draws nothing from the sequence's generator, so the other commands are the same
/// with and without them), sent to the store and to the model, the displaced bookings and the
/// dropped holds compared.
extension StoreConformance {
    /// The rotation: north's socket 3 retired, a socket 4 and a station added, south's B
    /// changed; south moved to another time zone (refused while it holds bookings); the first
    /// list again, under `.refuse` (nothing it brings back is booked); north's hours narrowed to
    /// 08–20; the first list again.
    static let catalogRotation: [(stations: [Station], rule: DisplacementRule)] = {
        var north = stations[0]
        north.sockets = [
            north.sockets[0], north.sockets[1], north.sockets[3], Socket(id: "4", connector: .ccs, powerKW: 300),
        ]
        var south = stations[1]
        south.sockets[1].powerKW = 60
        let east = Station(
            id: "east", name: "East", city: "Hull", timeZone: "Europe/London",
            sockets: [Socket(id: "1", connector: .type2, powerKW: 22)])
        var moved = stations
        moved[1].timeZone = "Europe/Paris"
        var narrow = stations
        narrow[0].openingHours = HourSet(8..<20)
        return [
            ([north, south, east], .displace), (moved, .displace), (stations, .refuse), (narrow, .displace),
            (stations, .displace),
        ]
    }()

    /// The change due at this step, if any.
    mutating func changeCatalogIfDue() async throws {
        guard step % 100 == 50 else { return }
        let (stations, rule) = Self.catalogRotation[(step / 100) % Self.catalogRotation.count]
        let change = CatalogChange(stations: stations)
        let now = now
        let mine = try await Answer.store({ try await store.changeCatalog(change, onBookings: rule, at: now) }) {
            result in
            .catalogChanged(
                displaced: result.displaced.map(ids.model).sorted { $0.id < $1.id }, dropped: result.droppedHolds)
        }
        let clock = CatalogClock(store.rules.catalog)
        let theirs = Answer.model(model.changeCatalog(change, rule: rule, at: now, clock: clock)) {
            .catalogChanged(displaced: $0.displaced, dropped: $0.dropped)
        }
        expect("catalog \(stations.map(\.id.rawValue)) (\(rule.rawValue))", store: mine, model: theirs)
    }

    /// The relocation due at this step, if any: at steps 75, 175, 275, … a station of the model's
    /// catalog in service, in turn, to a place drawn from the step (nothing from the sequence's
    /// generator), sent to the store (``BookingService/relocate(_:to:at:)``) and to the model as
    /// the change that moves that station alone; then the store's catalog must hold the place.
    mutating func relocateIfDue() async throws {
        guard step % 100 == 75, !model.stations.isEmpty else { return }
        let index = (step / 100) % model.stations.count
        let station = model.stations[index].id
        let place = Coordinate(latitude: 50 + Double(step % 997) / 100, longitude: -1 + Double(step % 89) / 100)
        let now = now
        let mine = try await Answer.store({ try await store.relocate(station, to: place, at: now) }) { result in
            .catalogChanged(
                displaced: result.displaced.map(ids.model).sorted { $0.id < $1.id }, dropped: result.droppedHolds)
        }
        var moved = model.stations
        moved[index].coordinate = place
        let clock = CatalogClock(store.rules.catalog)
        let change = CatalogChange(stations: moved)
        let theirs = Answer.model(model.changeCatalog(change, rule: .refuse, at: now, clock: clock)) {
            .catalogChanged(displaced: $0.displaced, dropped: $0.dropped)
        }
        expect("relocate \(station)", store: mine, model: theirs)
        expect(
            "place of \(station)", store: .place(store.rules.catalog.station(station)?.coordinate),
            model: .place(model.stations.first { $0.id == station }?.coordinate))
    }
}
