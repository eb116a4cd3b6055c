import Foundation
import SlotScheduler

extension Coordinate {
    /// The place `northKm` kilometres north and `eastKm` east of this one (negative: south,
    /// west), on a sphere of 6371 km: the latitude kept within -90...90, the longitude wrapped
    /// into -180...180, so the result is always on Earth (``isValid``).
    func offset(northKm: Double, eastKm: Double) -> Coordinate {
        let degreesPerKm = 180 / (Double.pi * 6371)
        let latitude = min(90, max(-90, self.latitude + northKm * degreesPerKm))
        let shrink = max(cos(latitude * .pi / 180), 1e-6)
        var longitude = self.longitude + eastKm * degreesPerKm / shrink
        longitude = (longitude + 180).truncatingRemainder(dividingBy: 360)
        longitude = (longitude < 0 ? longitude + 360 : longitude) - 180
        return Coordinate(latitude: latitude, longitude: longitude)
    }
}

extension Coordinate {
    /// `LATITUDE,LONGITUDE`, each as Swift prints a `Double` (which reads back exactly): how the
    /// simulator's messages, history lines and reports write a place.
    var pair: String { "\(latitude),\(longitude)" }

    /// ``pair``, or `no place` for a station without one.
    static func describe(_ place: Coordinate?) -> String { place?.pair ?? "no place" }

    /// A check-out's history detail: `leftAt LATITUDE,LONGITUDE`.
    var leftAtDetail: String { "leftAt " + pair }

    /// The place a check-out's history detail names (``leftAtDetail``); `nil` for another detail.
    init?(leftAtDetail detail: String) {
        guard detail.hasPrefix("leftAt ") else { return nil }
        let parts = detail.dropFirst("leftAt ".count).split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else { return nil }
        self.init(latitude: latitude, longitude: longitude)
    }
}

extension PreparedScenario {
    /// Where a ride from `station` ends when the workload moves vehicles (``Workload/leftWithinKm``):
    /// up to that many kilometres north or south and east or west of the station's place in the
    /// catalog (so a draw does not depend on earlier moves). `nil`, and nothing drawn, when the
    /// workload moves nothing or the station has no place: a workload that moves nothing draws
    /// as before. The one draw of both simulator modes and of a run against an API.
    public func rideEnd(from station: StationID, _ rng: inout SplitMix64) -> Coordinate? {
        guard let km = scenario.workload?.leftWithinKm, let home = rules.catalog.station(station)?.coordinate else {
            return nil
        }
        let north = Double(rng.below(2001) - 1000) / 1000 * km
        let east = Double(rng.below(2001) - 1000) / 1000 * km
        return home.offset(northKm: north, eastKm: east)
    }
}
