import SlotScheduler

/// The binary form of a station list (a ``Event/catalogChanged(_:at:)``'s, a snapshot's
/// catalog): a `u32` count, then each station's fields in declaration order. Decoding checks the
/// framing only; `Catalog` validates the stations.
extension EventCoding {
    static func encode(_ stations: [Station], into w: inout ByteWriter) {
        w.u32(UInt32(truncatingIfNeeded: stations.count))
        for s in stations {
            w.string(s.id.rawValue)
            w.string(s.name)
            w.string(s.city)
            w.string(s.timeZone)
            w.u8(s.coordinate == nil ? 0 : 1)
            if let c = s.coordinate {
                w.u64(c.latitude.bitPattern)
                w.u64(c.longitude.bitPattern)
            }
            w.u32(s.openingHours.mask)
            w.u32(UInt32(truncatingIfNeeded: s.facilities.count))
            for facility in s.facilities { w.string(facility) }
            w.u32(UInt32(truncatingIfNeeded: s.sockets.count))
            for socket in s.sockets {
                w.string(socket.id.rawValue)
                w.string(socket.connector.rawValue)
                w.u64(socket.powerKW.bitPattern)
                w.u8((socket.openingHours == nil ? 0 : 1) | (socket.accessCode == nil ? 0 : 2))
                if let hours = socket.openingHours { w.u32(hours.mask) }
                if let code = socket.accessCode { w.string(code) }
            }
        }
    }

    static func decodeStations(_ r: inout ByteReader) throws(DecodeError) -> [Station] {
        let count = Int(try r.u32("station count"))
        var stations: [Station] = []
        for _ in 0..<count {
            let id = StationID(try r.string("station id"))
            let name = try r.string("station name")
            let city = try r.string("station city")
            let timeZone = try r.string("station time zone")
            var coordinate: Coordinate?
            if try r.u8("coordinate flag") != 0 {
                coordinate = Coordinate(
                    latitude: Double(bitPattern: try r.u64("latitude")),
                    longitude: Double(bitPattern: try r.u64("longitude")))
            }
            let hours = HourSet(mask: try r.u32("opening hours"))
            var facilities: [String] = []
            for _ in 0..<Int(try r.u32("facility count")) { facilities.append(try r.string("facility")) }
            var sockets: [Socket] = []
            for _ in 0..<Int(try r.u32("socket count")) {
                let socketID = SocketID(try r.string("socket id"))
                let connector = ConnectorType(try r.string("connector"))
                let power = Double(bitPattern: try r.u64("power"))
                let flags = try r.u8("socket flags")
                guard flags & ~3 == 0 else { throw r.fail("unknown socket flags \(flags)") }
                let own = flags & 1 == 0 ? nil : HourSet(mask: try r.u32("socket hours"))
                let code = flags & 2 == 0 ? nil : try r.string("socket access code")
                sockets.append(
                    Socket(id: socketID, connector: connector, powerKW: power, openingHours: own, accessCode: code))
            }
            stations.append(
                Station(
                    id: id, name: name, city: city, timeZone: timeZone, coordinate: coordinate, sockets: sockets,
                    openingHours: hours, facilities: facilities))
        }
        return stations
    }
}

extension EventCoding {
    /// A `Catalog.Record`: `u64` revision, its stations (every socket of each), then per station
    /// a retired flag, the count of sockets in service and each socket's flat index.
    static func encode(_ record: Catalog.Record, into w: inout ByteWriter) {
        w.u64(UInt64(record.revision))
        encode(record.stations, into: &w)
        let retired = Set(record.retiredStations)
        for i in record.stations.indices {
            w.u8(retired.contains(Int32(i)) ? 1 : 0)
            w.u32(UInt32(bitPattern: record.socketsInService[i]))
            for f in record.flatIndices[i] { w.u32(UInt32(bitPattern: f)) }
        }
    }

    static func decodeCatalog(_ r: inout ByteReader) throws(DecodeError) -> Catalog.Record {
        let revision = try r.u64("catalog revision")
        guard revision <= UInt64(Int32.max) else { throw r.fail("catalog revision \(revision)") }
        let stations = try decodeStations(&r)
        var retired: [Int32] = []
        var inService: [Int32] = []
        var flat: [[Int32]] = []
        for (i, station) in stations.enumerated() {
            if try r.u8("retired flag") != 0 { retired.append(Int32(i)) }
            inService.append(Int32(bitPattern: try r.u32("sockets in service")))
            var indices: [Int32] = []
            for _ in station.sockets { indices.append(Int32(bitPattern: try r.u32("flat index"))) }
            flat.append(indices)
        }
        return Catalog.Record(
            revision: Int(revision), stations: stations, retiredStations: retired, socketsInService: inService,
            flatIndices: flat)
    }
}
