#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import PostgresNIO
import SlotScheduler

extension PostgresBookingService {
    /// Puts a new station list in service for every instance, as `Ledger.changeCatalog(_:onBookings:at:)`
    /// decides it: one transaction that locks the deployment row and the bookings and holds
    /// tables against writes (`LOCK ... IN SHARE MODE`: reads go on, writes wait for its commit),
    /// reads only the bookings not yet started and the holds on the sockets the change affects
    /// (`Catalog.socketsAffected(by:)`), displaces them, stores the catalog record and bumps the
    /// deployment's version. Other instances reload the catalog at their next command (its
    /// version is stale); a booking or hold their transactions wrote under the old catalog while
    /// this one waited is refused by migration 11's guard and decided again.
    ///
    /// Not repeated after a reply lost in flight: the outcome is then unknown (``PostgresStoreError/Kind/outcomeUnknown``);
    /// `catalog_changes` and the catalog's revision tell.
    ///
    /// - Complexity: the bookings and holds of the affected sockets from `now` on, plus the
    ///   catalog's stations and sockets; not the history.
    @discardableResult
    public func changeCatalog(
        _ change: CatalogChange, onBookings rule: DisplacementRule = .displace, at now: Instant
    ) async throws -> CatalogChangeResult {
        try await changingCatalog("changeCatalog", onBookings: rule, at: now) { _ throws(Rejection) in change }
    }

    /// Moves a station to `place` for every instance, as `Ledger.relocate(_:to:at:)`: the change is
    /// built in the transaction from the catalog the deployment row holds (locked), so
    /// relocations at once, from any instance, never undo one another; otherwise as
    /// ``changeCatalog(_:onBookings:at:)``.
    @discardableResult
    public func relocate(_ station: StationID, to place: Coordinate, at now: Instant) async throws
        -> CatalogChangeResult
    {
        try await changingCatalog("relocate", onBookings: .refuse, at: now) { catalog throws(Rejection) in
            try catalog.relocating(station, to: place)
        }
    }

    /// A catalog change built by `change` from the deployment's catalog in one transaction, then
    /// adopted by this instance.
    private func changingCatalog(
        _ operation: String, onBookings rule: DisplacementRule, at now: Instant,
        _ change: @escaping @Sendable (Catalog) throws(Rejection) -> CatalogChange
    ) async throws -> CatalogChangeResult {
        let decided: (Result<CatalogRevision, Rejection>, Int32) = try await retrying(
            operation, idempotent: false
        ) {
            try await self.transaction { connection in
                try await self.changeCatalog(change, rule: rule, at: now, on: connection)
            }
        }
        let revision = try decided.0.get()
        adopt(revision.rules, version: decided.1)
        logger.info(
            "PostgreSQL store changed the catalog",
            metadata: [
                "catalog.revision": "\(revision.result.revision)",
                "displaced": "\(revision.result.displaced.count)",
            ])
        return revision.result
    }

    /// The change, in the caller's transaction: the decision, and when it changes the catalog,
    /// the new deployment version.
    private func changeCatalog(
        _ build: (Catalog) throws(Rejection) -> CatalogChange, rule: DisplacementRule, at now: Instant,
        on c: PostgresConnection
    ) async throws -> (Result<CatalogRevision, Rejection>, Int32) {
        let rows = try await c.allRows(
            """
            SELECT policy_json, policy_version, to_jsonb(d) ->> 'catalog_record', catalog_json
            FROM deployment d FOR UPDATE
            """, logger: logger)
        guard let row = rows.first else {
            throw PostgresStoreError(
                .invalidStoredConfiguration, operation: "changeCatalog", message: "no deployment row")
        }
        let (policyJSON, version, storedRecord, json) = try CatalogLayout.decoding("changeCatalog") {
            try row.decode((String, Int32, String?, String).self)
        }
        let current =
            try storedRecord.map { try Self.catalog(record: $0, operation: "changeCatalog") }
            ?? Catalog(try JSONDecoder().decode([Station].self, from: Data(json.utf8)))
        let rules = try Rules(
            catalog: current, policy: try JSONDecoder().decode(Policy.self, from: Data(policyJSON.utf8)))
        let change: CatalogChange
        do throws(Rejection) { change = try build(current) } catch { return (.failure(error), version) }
        try await c.allRows("LOCK TABLE bookings, holds IN SHARE MODE", logger: logger)
        let next: Rules
        switch CatalogRevision.nextRules(change, rules: rules) {
        case .success(let found): next = found
        case .failure(let rejection): return (.failure(rejection), version)
        }
        let layout = CatalogLayout(current)
        let affected = current.socketsAffected(by: next.catalog)
        let (snapshot, holdIDs) = try await affectedState(affected, layout: layout, at: now, on: c)
        let decided = CatalogRevision.decide(change, rule: rule, now: now, rules: rules, snapshot: snapshot)
        guard case .success(let revision) = decided else { return (decided, version) }
        let result = revision.result
        let ids = result.displaced.map { Int64(bitPattern: $0.id.rawValue) }
        if !ids.isEmpty {
            try await c.allRows(
                "UPDATE bookings SET status = 'displaced' WHERE id = ANY(\(ids)::bigint[])", logger: logger)
        }
        let dropped = result.droppedHolds.compactMap { holdIDs[$0] }
        if !dropped.isEmpty {
            try await c.allRows(
                "UPDATE holds SET state = 'released' WHERE id = ANY(\(dropped)::bigint[])", logger: logger)
        }
        try await storeIndex(next.catalog, on: c)
        let record = try Self.json(next.catalog.record)
        let stations = try Self.json(next.catalog.stations)
        let bumped = try await c.allRows(
            """
            UPDATE deployment SET catalog_json = \(stations), catalog_record = \(record),
                policy_version = policy_version + 1
            RETURNING policy_version
            """, logger: logger
        ).first.map { row in try CatalogLayout.decoding("changeCatalog") { try row.decode(Int32.self) } }
        let listed = try Self.json(change.stations)
        try await c.allRows(
            """
            INSERT INTO catalog_changes (revision, at, stations_json, displaced, dropped_holds)
            VALUES (\(Int32(result.revision)), \(now.secondsSinceEpoch), \(listed), \(Int32(ids.count)),
                    \(Int32(dropped.count)))
            """, logger: logger)
        return (decided, bumped ?? version)
    }

    /// The part of the state a catalog change decides on (see `CatalogRevision.decide`): the
    /// active bookings not yet started, the held holds and the overrides (those that differ from
    /// the regular hours, as the core keeps them) of `sockets`.
    private func affectedState(_ sockets: [Int32], layout: CatalogLayout, at now: Instant, on c: PostgresConnection)
        async throws -> (Snapshot, holdIDs: [Hold: Int64])
    {
        var snapshot = Snapshot(bookings: [], overrides: [])
        var holdIDs: [Hold: Int64] = [:]
        guard !sockets.isEmpty else { return (snapshot, holdIDs) }
        for row in try await c.allRows(
            """
            SELECT \(unescaped: CatalogLayout.columns) FROM bookings
            WHERE status = 'active' AND socket_idx = ANY(\(sockets)::integer[]) AND start_at >= \(now.secondsSinceEpoch)
            ORDER BY id
            """, logger: logger)
        {
            snapshot.bookings.append(try layout.booking(row, operation: "changeCatalog"))
        }
        for row in try await c.allRows(
            """
            SELECT socket_idx, day, hour, user_id, id, start_at, created_at, expires_at, reminder FROM holds
            WHERE state = 'held' AND socket_idx = ANY(\(sockets)::integer[])
            """, logger: logger)
        {
            let (socket, day, hour, user, id, start, created, expires, reminder) = try CatalogLayout.decoding(
                "changeCatalog"
            ) { try row.decode((Int32, Int32, Int32, Int64, Int64, Int64, Int64, Int64, Int64?).self) }
            let slot = try layout.slot(socket: socket, day: day, hour: hour, operation: "changeCatalog")
            let hold = HoldRow(
                id: id, start: start, createdAt: created, expiresAt: expires, reminder: reminder, state: "held",
                booking: nil
            ).value(slot: slot, user: UserID(UInt64(bitPattern: user)))
            snapshot.holds.append(hold)
            holdIDs[hold] = id
        }
        for row in try await c.allRows(
            "SELECT socket_idx, day, mask FROM availability WHERE socket_idx = ANY(\(sockets)::integer[])",
            logger: logger)
        {
            let (socket, day, mask) = try CatalogLayout.decoding("changeCatalog") {
                try row.decode((Int32, Int32, Int32).self)
            }
            guard UInt32(bitPattern: mask) != layout.regular[Int(socket)] else { continue }
            let slot = try layout.slot(socket: socket, day: day, hour: 0, operation: "changeCatalog")
            snapshot.overrides.append(
                AvailabilityChange(
                    station: slot.station, socket: slot.socket, date: slot.date,
                    hours: HourSet(mask: UInt32(bitPattern: mask))))
        }
        return (snapshot, holdIDs)
    }

    /// Writes the catalog's stations and sockets (retired flags, regular hours) through
    /// `catalog_index`, which may write those tables.
    private func storeIndex(_ catalog: Catalog, on c: PostgresConnection) async throws {
        let layout = CatalogLayout(catalog)
        let record = catalog.record
        let retired = Set(record.retiredStations)
        let stationIndices = record.stations.indices.map { Int32($0) }
        var socketIndices: [Int32] = []
        var socketStations: [Int32] = []
        var socketIDs: [String] = []
        var socketRetired: [Bool] = []
        for (i, station) in record.stations.enumerated() {
            for (k, socket) in station.sockets.enumerated() {
                socketIndices.append(record.flatIndices[i][k])
                socketStations.append(Int32(i))
                socketIDs.append(socket.id.rawValue)
                socketRetired.append(k >= layout.inService[i])
            }
        }
        let masks = socketIndices.map { Int32(bitPattern: layout.regular[Int($0)]) }
        try await c.allRows(
            """
            SELECT catalog_index(\(stationIndices)::integer[], \(record.stations.map(\.id.rawValue))::text[],
                \(record.stations.map(\.timeZone))::text[], \(stationIndices.map { retired.contains($0) })::boolean[],
                \(socketIndices)::integer[], \(socketStations)::integer[], \(socketIDs)::text[], \(masks)::integer[],
                \(socketRetired)::boolean[])
            """, logger: logger)
    }
}
#endif
