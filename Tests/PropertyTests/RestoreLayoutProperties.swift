import PropertyBased
import SlotScheduler
import Testing

/// I8, across layouts: the journal of a scheduler restores into a scheduler with any shard
/// count, or into a ledger, with the same state and the same booking ids; afterwards every face
/// decides alike, and no new id equals an old one.
@Suite struct RestoreLayoutProperties {
    static let count = iterations(100)

    /// A ledger or a scheduler, driven through one set of calls.
    final class Face {
        let name: String
        var ledger: Ledger?
        let scheduler: Scheduler?
        /// The snapshot the face was restored from: its journal starts after it.
        let base: Snapshot

        init(_ name: String, ledger: Ledger, base: Snapshot = Snapshot(bookings: [], overrides: [])) {
            self.name = name
            self.ledger = ledger
            scheduler = nil
            self.base = base
        }
        init(_ name: String, scheduler: Scheduler, base: Snapshot = Snapshot(bookings: [], overrides: [])) {
            self.name = name
            self.scheduler = scheduler
            self.base = base
        }

        var snapshot: Snapshot { scheduler?.snapshot() ?? ledger?.snapshot() ?? Snapshot(bookings: [], overrides: []) }
        var events: [Event] { scheduler?.events ?? ledger?.events ?? [] }

        func reserve(_ request: ReservationRequest, at now: Instant) -> Result<Booking, Rejection> {
            do throws(Rejection) {
                if let scheduler { return .success(try scheduler.reserve(request, at: now)) }
                guard var l = ledger else { return .failure(Rejection(.unknownStation)) }
                defer { ledger = l }
                return .success(try l.reserve(request, at: now))
            } catch { return .failure(error) }
        }

        func cancel(_ booking: Booking, at now: Instant) -> Result<Booking, Rejection> {
            do throws(Rejection) {
                if let scheduler { return .success(try scheduler.cancel(booking.id, by: booking.user, at: now)) }
                guard var l = ledger else { return .failure(Rejection(.unknownStation)) }
                defer { ledger = l }
                return .success(try l.cancel(booking.id, by: booking.user, at: now))
            } catch { return .failure(error) }
        }
    }

    /// A result with a newly made booking's id blanked, to compare across faces.
    static func blank(_ result: Result<Booking, Rejection>, keeping old: Set<BookingID>) -> String {
        switch result {
        case .success(var b):
            if !old.contains(b.id) { b.id = BookingID(0) }
            return "\(b)"
        case .failure(let rejection): return "refused \(rejection.reason)"
        }
    }

    @Test func restoresIntoAnyLayout() async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands) { world, commands in
            guard var runner = Runner(world: world, schedulerShards: 3), let source = runner.scheduler else { return }
            for raw in commands { _ = runner.step(raw) }
            let events = source.events
            let snapshot = source.snapshot()
            let rules = runner.rules
            let now = runner.now
            do {
                let reference = Face(
                    "3 shards, replayed", scheduler: try Scheduler(rules: rules, shards: 3, replaying: events))
                let faces = [
                    Face("1 shard", scheduler: try Scheduler(rules: rules, shards: 1, replaying: events)),
                    Face("2 shards", scheduler: try Scheduler(rules: rules, shards: 2, replaying: events)),
                    Face(
                        "1 shard from the snapshot",
                        scheduler: try Scheduler(rules: rules, shards: 1, snapshot: snapshot), base: snapshot),
                    Face("ledger", ledger: try Ledger(rules: rules, replaying: events)),
                    Face(
                        "ledger from the snapshot", ledger: try Ledger(rules: rules, snapshot: snapshot), base: snapshot
                    ),
                ]
                for face in [reference] + faces {
                    #expect(face.snapshot == snapshot, "\(face.name): restored state differs")
                }
                // The same calls after the restore: cancels of every old booking by its owner, then
                // a reservation of every old booking's slot.
                let old = Set(snapshot.bookings.map(\.id))
                var expected: [String] = []
                for b in snapshot.bookings { expected.append(Self.blank(reference.cancel(b, at: now), keeping: old)) }
                for b in snapshot.bookings {
                    let request = ReservationRequest(slot: b.slot, user: b.user)
                    expected.append(Self.blank(reference.reserve(request, at: now), keeping: old))
                }
                for face in faces {
                    var actual: [String] = []
                    var made: [BookingID] = []
                    for b in snapshot.bookings { actual.append(Self.blank(face.cancel(b, at: now), keeping: old)) }
                    for b in snapshot.bookings {
                        let result = face.reserve(ReservationRequest(slot: b.slot, user: b.user), at: now)
                        if case .success(let booking) = result { made.append(booking.id) }
                        actual.append(Self.blank(result, keeping: old))
                    }
                    #expect(actual == expected, "\(face.name): decides differently after the restore")
                    #expect(Set(made).count == made.count && old.isDisjoint(with: made), "\(face.name): an id reused")
                    // A second restore, into yet another layout, of what the face has now.
                    let again = try Scheduler(rules: rules, shards: 4, snapshot: face.base, replaying: face.events)
                    #expect(again.snapshot() == face.snapshot, "\(face.name): a second restore differs")
                    let fromLedger = try Ledger(rules: rules, snapshot: face.snapshot)
                    #expect(fromLedger.snapshot() == face.snapshot, "\(face.name): a ledger restore differs")
                }
            } catch {
                Issue.record("restore failed: \(error)")
            }
        }
    }
}
