/// A resource that moves: a shared vehicle is left where its ride ended, so its station's
/// ``Station/coordinate`` changes (<doc:SharedVehicles>). A relocation is a catalog change that
/// gives one station a new place and leaves everything else as it is: journaled and replayed as
/// any catalog change, and never displacing a booking (the sockets and hours stay).
extension Catalog {
    /// The catalog change that moves station `station` to `place`: the stations in service, that
    /// one with its new ``Station/coordinate``.
    ///
    /// - Throws: ``Rejection/Reason/unknownStation`` for a station not in service;
    ///   ``Rejection/Reason/invalidCatalog`` for a place that is not a point on Earth
    ///   (``Coordinate/isValid``).
    /// - Complexity: O(stations).
    public func relocating(_ station: StationID, to place: Coordinate) throws(Rejection) -> CatalogChange {
        try Self.checkPlace(place)
        guard let index = stations.firstIndex(where: { $0.id == station }) else {
            throw Rejection(.unknownStation, value: IdentifierRule.shortened(station.rawValue))
        }
        var moved = stations
        moved[index].coordinate = place
        return CatalogChange(stations: moved)
    }

    /// Refuses a place that is not a point on Earth, before anything is changed.
    static func checkPlace(_ place: Coordinate) throws(Rejection) {
        guard place.isValid else {
            throw Rejection(.invalidCatalog, value: "coordinate \(place.latitude),\(place.longitude) is not on Earth")
        }
    }
}

extension Ledger {
    /// Moves station `station` to `place` at `now`: the catalog change
    /// ``Catalog/relocating(_:to:)`` builds from this ledger's catalog, applied as
    /// ``changeCatalog(_:onBookings:at:)`` applies any (it displaces nothing).
    ///
    /// - Complexity: O(state), as every catalog change.
    @discardableResult
    public mutating func relocate(_ station: StationID, to place: Coordinate, at now: Instant) throws(Rejection)
        -> CatalogChangeResult
    {
        try changeCatalog(try rules.catalog.relocating(station, to: place), onBookings: .refuse, at: now)
    }
}
