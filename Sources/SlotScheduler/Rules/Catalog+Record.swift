extension Catalog {
    /// A catalog as plain values, retired stations and sockets and every index included: what a
    /// store keeps so that it reopens with the catalog its bookings were made under (and the
    /// indices they name) after ``Catalog/changed(to:)``.
    public struct Record: Hashable, Codable, Sendable {
        public var revision: Int
        /// Every station by index: its sockets in service in order, then its retired sockets.
        public var stations: [Station]
        /// The indices of retired stations, ascending.
        public var retiredStations: [Int32]
        /// How many of each station's sockets are in service (the first ones).
        public var socketsInService: [Int32]
        /// The flat index of each socket of each station, in `stations`' order.
        public var flatIndices: [[Int32]]

        public init(
            revision: Int, stations: [Station], retiredStations: [Int32], socketsInService: [Int32],
            flatIndices: [[Int32]]
        ) {
            self.revision = revision
            self.stations = stations
            self.retiredStations = retiredStations
            self.socketsInService = socketsInService
            self.flatIndices = flatIndices
        }
    }

    /// This catalog as a ``Record``.
    public var record: Record {
        var stations = layout
        var flat: [[Int32]] = []
        for i in layout.indices {
            stations[i].sockets = layout[i].sockets + retiredSocketsOfStation[i].map { flatSockets[Int($0)] }
            flat.append(socketsOfStation[i] + retiredSocketsOfStation[i])
        }
        return Record(
            revision: revision, stations: stations,
            retiredStations: isRetired.indices.filter { isRetired[$0] }.map { Int32($0) },
            socketsInService: socketsOfStation.map { Int32($0.count) }, flatIndices: flat)
    }

    /// The catalog a ``Record`` holds, refusing one that is not a catalog's (each flat index used
    /// once, every count in range, every station valid).
    public init(record: Record) throws(InvalidValue) {
        let n = record.stations.count
        guard record.socketsInService.count == n, record.flatIndices.count == n,
            record.retiredStations.allSatisfy({ (0..<Int32(n)).contains($0) }), record.revision >= 0
        else {
            throw InvalidValue(
                field: "catalog", value: "\(n) stations", expected: "one count and index list per station",
                turkish: "istasyon başına bir sayı ve dizin listesi")
        }
        var isRetired = [Bool](repeating: false, count: n)
        for i in record.retiredStations { isRetired[Int(i)] = true }
        let total = record.flatIndices.reduce(0) { $0 + $1.count }
        var flat = [Socket?](repeating: nil, count: total)
        var layout = record.stations
        var active: [[Int32]] = []
        var retired: [[Int32]] = []
        for (i, station) in record.stations.enumerated() {
            let count = Int(record.socketsInService[i])
            guard record.flatIndices[i].count == station.sockets.count, (0...station.sockets.count).contains(count),
                !isRetired[i] || count == 0
            else {
                throw InvalidValue(
                    field: "catalog.stations[\(i)]", value: station.id.rawValue,
                    expected: "a flat index per socket and a count of sockets in service",
                    turkish: "soket başına bir dizin ve hizmetteki soket sayısı")
            }
            for (k, f) in record.flatIndices[i].enumerated() {
                guard (0..<Int32(total)).contains(f), flat[Int(f)] == nil else {
                    throw InvalidValue(
                        field: "catalog.flatIndices[\(i)][\(k)]", value: String(f),
                        expected: "each index below \(total) once", turkish: "\(total) altındaki her dizin bir kez")
                }
                flat[Int(f)] = station.sockets[k]
            }
            active.append(Array(record.flatIndices[i].prefix(count)))
            retired.append(record.flatIndices[i].dropFirst(count).sorted())
            layout[i].sockets = Array(station.sockets.prefix(count))
        }
        let inService = layout.indices.filter { !isRetired[$0] }.map { layout[$0] }
        try Self.validate(inService, field: "catalog.stations")
        try self.init(
            layout: layout, isRetired: isRetired, socketsOfStation: active, retiredSocketsOfStation: retired,
            flatSockets: flat.compactMap { $0 }, revision: record.revision)
    }
}
