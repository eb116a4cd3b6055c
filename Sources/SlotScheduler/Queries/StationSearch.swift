/// A station search like the source apps' city and station pages.
public struct StationQuery: Hashable, Codable, Sendable {
    /// Matched, folded, against the station's name and city (see ``TextFolding``).
    public var text: String?
    /// Only this city (folded equality).
    public var city: String?
    /// Only stations with at least one socket of this connector type.
    public var connector: ConnectorType?
    /// Only stations with at least one socket of at least this power.
    public var minimumPowerKW: Double?
    /// Only stations offering all of these facilities (folded equality).
    public var facilities: [String]
    /// Sort by distance from here; otherwise by name then id.
    public var near: Coordinate?
    /// Only stations within this many kilometres of ``near``.
    public var withinKilometres: Double?
    /// Zero-based page number and page size (1...500).
    public var page: Int
    public var pageSize: Int

    public init(
        text: String? = nil, city: String? = nil, connector: ConnectorType? = nil, minimumPowerKW: Double? = nil,
        facilities: [String] = [], near: Coordinate? = nil, withinKilometres: Double? = nil, page: Int = 0,
        pageSize: Int = 20
    ) {
        self.text = text
        self.city = city
        self.connector = connector
        self.minimumPowerKW = minimumPowerKW
        self.facilities = facilities
        self.near = near
        self.withinKilometres = withinKilometres
        self.page = page
        self.pageSize = pageSize
    }
}

/// One page of results; pages are stable because the order is total (distance or name, then id).
public struct StationPage: Hashable, Codable, Sendable {
    public var stations: [StationMatch]
    public var page: Int
    public var pageSize: Int
    public var totalCount: Int
    public var hasMore: Bool {
        // Overflow-safe: a page past Int.max / pageSize has nothing after it.
        let (start, overflow) = page.multipliedReportingOverflow(by: pageSize)
        return !overflow && start < totalCount && totalCount - start > pageSize
    }
}

public struct StationMatch: Hashable, Codable, Sendable {
    public var station: Station
    public var distanceKilometres: Double?
}

extension StationQuery {
    /// The longest text, city or facility a query may give, in UTF-8 bytes.
    public static let maxTextBytes = 256
    /// The most facilities a query may ask for.
    public static let maxFacilities = 32

    /// Refuses pages, sizes, texts and places a search cannot use; see ``Catalog/search(_:)``.
    func validate() throws(InvalidValue) {
        guard page >= 0 else {
            throw InvalidValue(
                field: "page", value: String(page), expected: "a page number of 0 or more",
                turkish: "0 veya daha büyük bir sayfa numarası")
        }
        guard (1...500).contains(pageSize) else {
            throw InvalidValue(
                field: "pageSize", value: String(pageSize), expected: "a page size 1...500",
                turkish: "1...500 arası bir sayfa boyutu")
        }
        guard facilities.count <= Self.maxFacilities else {
            throw InvalidValue(
                field: "facilities", value: String(facilities.count),
                expected: "at most \(Self.maxFacilities) facilities",
                turkish: "en çok \(Self.maxFacilities) olanak")
        }
        let texts = [("text", text), ("city", city)] + facilities.enumerated().map { ("facilities[\($0)]", $1) }
        for case (let field, let value?) in texts where value.utf8.count > Self.maxTextBytes {
            throw InvalidValue(
                field: field, value: IdentifierRule.shortened(value),
                expected: "at most \(Self.maxTextBytes) UTF-8 bytes",
                turkish: "en çok \(Self.maxTextBytes) UTF-8 bayt")
        }
        if let near, !near.isValid {
            throw InvalidValue(
                field: "near", value: "\(near.latitude),\(near.longitude)",
                expected: "latitude -90...90 and longitude -180...180",
                turkish: "-90...90 arası enlem ve -180...180 arası boylam")
        }
        if let radius = withinKilometres, radius.isNaN {
            throw InvalidValue(
                field: "withinKilometres", value: "nan", expected: "a distance in kilometres",
                turkish: "kilometre cinsinden bir uzaklık")
        }
        if let power = minimumPowerKW, power.isNaN {
            throw InvalidValue(
                field: "minimumPowerKW", value: "nan", expected: "a power in kW",
                turkish: "kW cinsinden bir güç")
        }
    }
}

extension Catalog {
    /// Stations matching `query`, one stable page at a time.
    ///
    /// Refuses (``InvalidValue``) a negative page, a page size outside 1...500, a text, city or
    /// facility longer than ``StationQuery/maxTextBytes``, more than ``StationQuery/maxFacilities``
    /// facilities, a `near` that is not on Earth and NaN numbers. A page past the end, however far
    /// (`Int.max`), is empty.
    ///
    /// - Complexity: O(*n* log *n*) in the number of stations, plus their sockets, plus the
    ///   query's texts and connector name once each (not once per station or socket).
    public func search(_ query: StationQuery) throws(InvalidValue) -> StationPage {
        try query.validate()
        let text = query.text.map(TextFolding.fold) ?? ""
        let city = query.city.map(TextFolding.fold)
        let facilities = query.facilities.map(TextFolding.fold)
        // Not length-limited like the texts above: normalized once, not once per socket.
        let connector = query.connector?.normalized
        var matches: [(StationMatch, String)] = []
        for station in stations {
            let name = TextFolding.fold(station.name)
            let stationCity = TextFolding.fold(station.city)
            if !text.isEmpty, !name.contains(text), !stationCity.contains(text) { continue }
            if let city, stationCity != city { continue }
            if let connector, !station.sockets.contains(where: { $0.connector.normalized == connector }) { continue }
            if let power = query.minimumPowerKW, !station.sockets.contains(where: { $0.powerKW >= power }) { continue }
            let offered = Set(station.facilities.map(TextFolding.fold))
            if !facilities.allSatisfy(offered.contains) { continue }
            var distance: Double?
            if let near = query.near, let at = station.coordinate { distance = near.distanceKilometres(to: at) }
            if let radius = query.withinKilometres, query.near != nil {
                guard let distance, distance <= radius else { continue }
            }
            matches.append((StationMatch(station: station, distanceKilometres: distance), name))
        }
        matches.sort { a, b in
            if query.near != nil, a.0.distanceKilometres != b.0.distanceKilometres {
                return (a.0.distanceKilometres ?? .infinity) < (b.0.distanceKilometres ?? .infinity)
            }
            return (a.1, a.0.station.id) < (b.1, b.0.station.id)
        }
        // A page so far out that page * pageSize overflows is past the end, like any page after it.
        let (offset, overflow) = query.page.multipliedReportingOverflow(by: query.pageSize)
        let start = overflow ? matches.count : min(offset, matches.count)
        let end = start + min(query.pageSize, matches.count - start)
        return StationPage(
            stations: matches[start..<end].map(\.0), page: query.page, pageSize: query.pageSize,
            totalCount: matches.count)
    }
}
