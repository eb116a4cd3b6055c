import Foundation
import SlotScheduler

/// Where a socket is on its station's charger: an EVSE and one of its connectors (OCPP 2.0.1
/// numbers both from 1).
public struct EVSEAddress: Hashable, Codable, Sendable, CustomStringConvertible {
    public var evseId: Int
    public var connectorId: Int

    public init(evseId: Int, connectorId: Int = 1) {
        self.evseId = evseId
        self.connectorId = connectorId
    }

    public var description: String { "EVSE \(evseId) connector \(connectorId)" }
}

/// Sockets ↔ EVSEs. By default the n-th socket of a station, in catalog order, is EVSE n,
/// connector 1; a catalog file may give a socket `"ocpp": {"evseId": 3, "connectorId": 2}`.
public struct EVSEMap: Sendable {
    private var addresses: [StationID: [SocketID: EVSEAddress]] = [:]
    private var sockets: [StationID: [EVSEAddress: SocketID]] = [:]

    /// The map of `catalog`, with `overrides` where given; throws when two sockets of a station
    /// would share an address, or an address is not positive.
    public init(catalog: Catalog, overrides: [StationID: [SocketID: EVSEAddress]] = [:]) throws(InvalidValue) {
        for station in catalog.stations {
            for (index, socket) in station.sockets.enumerated() {
                let address = overrides[station.id]?[socket.id] ?? EVSEAddress(evseId: index + 1)
                let field = "stations[\(station.id)].sockets[\(socket.id)].ocpp"
                guard address.evseId > 0, address.connectorId > 0 else {
                    throw InvalidValue(
                        field: field, value: address.description, expected: "evseId and connectorId from 1",
                        turkish: "1'den başlayan evseId ve connectorId")
                }
                guard sockets[station.id, default: [:]].updateValue(socket.id, forKey: address) == nil else {
                    throw InvalidValue(
                        field: field, value: address.description, expected: "an address no other socket has",
                        turkish: "başka bir soketin kullanmadığı bir adres")
                }
                addresses[station.id, default: [:]][socket.id] = address
            }
        }
    }

    /// The address of a socket, or `nil` for one the catalog does not have.
    public func address(of socket: SocketID, at station: StationID) -> EVSEAddress? {
        addresses[station]?[socket]
    }

    /// The socket at an EVSE: at `connectorId` when given, else the EVSE's only socket (an EVSE
    /// with several sockets and no connector named is `nil`: which one is not known).
    public func socket(evseId: Int, connectorId: Int?, at station: StationID) -> SocketID? {
        guard let map = sockets[station] else { return nil }
        if let connectorId { return map[EVSEAddress(evseId: evseId, connectorId: connectorId)] }
        let matching = map.filter { $0.key.evseId == evseId }
        return matching.count == 1 ? matching.first?.value : nil
    }

    /// The `ocpp` addresses a catalog file gives (`{"stations": [{"id", "sockets": [{"id",
    /// "ocpp"}]}]}`, or the array of stations alone); the rest of the file is not read here.
    public static func overrides(inCatalogJSON data: Data) throws -> [StationID: [SocketID: EVSEAddress]] {
        struct SocketEntry: Decodable {
            var id: SocketID
            var ocpp: EVSEAddress?
        }
        struct StationEntry: Decodable {
            var id: StationID
            var sockets: [SocketEntry]
        }
        struct File: Decodable { var stations: [StationEntry] }
        let stations: [StationEntry]
        if let file = try? JSONDecoder().decode(File.self, from: data) {
            stations = file.stations
        } else {
            stations = try JSONDecoder().decode([StationEntry].self, from: data)
        }
        var result: [StationID: [SocketID: EVSEAddress]] = [:]
        for station in stations {
            for socket in station.sockets {
                if let address = socket.ocpp { result[station.id, default: [:]][socket.id] = address }
            }
        }
        return result
    }
}
