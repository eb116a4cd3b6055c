import Foundation
import SlotScheduler
import SlotSimulation
import Testing

@testable import SlotSchedulerJournal

/// Automatic checkpoints with retention: the files stay proportional to the open horizon over a
/// long run, and a crash at any moment, a checkpoint's steps included, loses nothing acknowledged.
@Suite("Journal store: automatic checkpoints and retention")
struct RetentionStoreTests {
    static let rules: Rules = {
        do {
            return try Rules(
                catalog: try Catalog(JournalFixture.stations),
                policy: Policy(maxUpcomingBookings: 3, horizon: .rollingDays(10)))
        } catch { preconditionFailure("rules: \(error)") }
    }()

    /// 06:00 UTC on day `d` after the fixture's first day.
    static func morning(_ d: Int) -> Instant { Instant.utc(JournalFixture.firstDay.adding(days: d), hour: 6) }

    /// A request for a random slot within the next ten days of day `d`.
    static func request(day d: Int, _ k: Int, _ rng: inout SplitMix64) -> ReservationRequest {
        let slot = Slot(
            station: StationID("S\(rng.below(3))"), socket: SocketID("\(1 + rng.below(2))"),
            date: JournalFixture.firstDay.adding(days: d + 1 + rng.below(10)), hour: rng.below(24))
        return ReservationRequest(slot: slot, user: UserID(UInt64(rng.below(60))), requestID: RequestID("d\(d)-\(k)"))
    }

    static func totalBytes(_ disk: SimulatedDisk) -> Int { disk.survivors.values.reduce(0) { $0 + $1.count } }

    /// The largest total size of the files on days 20-39 and on days 130-149 of a run.
    static func fileSizes(_ checkpoints: Checkpoints) async throws -> (early: Int, late: Int) {
        let disk = SimulatedDisk()
        let store = try JournalStore(files: disk, rules: Self.rules, shards: 3, checkpoints: checkpoints)
        var rng = SplitMix64(seed: 11)
        var sizes = (early: 0, late: 0)
        for d in 0..<150 {
            for k in 0..<30 { _ = try? await store.reserve(Self.request(day: d, k, &rng), at: Self.morning(d)) }
            if (20..<40).contains(d) { sizes.early = max(sizes.early, Self.totalBytes(disk)) }
            if d >= 130 { sizes.late = max(sizes.late, Self.totalBytes(disk)) }
        }
        await store.close()
        return sizes
    }

    @Test("without retention the same run's files grow with its age")
    func filesGrowWithoutRetention() async throws {
        let sizes = try await Self.fileSizes(Checkpoints(afterRecords: 60, afterBytes: nil, retainDays: nil))
        #expect(sizes.late > sizes.early * 3, "\(sizes)")
    }

    @Test("a long run keeps the files about the open horizon, and reopens to the same state")
    func filesStayBounded() async throws {
        let disk = SimulatedDisk()
        let checkpoints = Checkpoints(afterRecords: 60, afterBytes: nil, retainDays: 1)
        let store = try JournalStore(files: disk, rules: Self.rules, shards: 3, checkpoints: checkpoints)
        var rng = SplitMix64(seed: 11)
        var first: Booking?
        var early = 0
        var late = 0
        for d in 0..<150 {
            for k in 0..<30 {
                if let b = try? await store.reserve(Self.request(day: d, k, &rng), at: Self.morning(d)), first == nil {
                    first = b
                }
            }
            let bytes = Self.totalBytes(disk)
            if (20..<40).contains(d) { early = max(early, bytes) }
            if d >= 130 { late = max(late, bytes) }
            #expect(disk.survivors.count <= 3, "day \(d): \(disk.survivors.keys.sorted())")
        }
        #expect(store.statistics.automaticCheckpoints > 20)
        #expect(store.statistics.failedCheckpoints == 0)
        #expect(early > 0 && late <= early * 3 / 2, "bytes on days 20-39 at most \(early), on days 130-149 \(late)")
        let held = try await store.allBookingsByID()
        let firstID = try #require(first).id
        #expect(try await store.lookup(firstID) == .released)
        await store.close()

        let reopened = try JournalStore(
            files: SimulatedDisk(disk.survivors), rules: Self.rules, checkpoints: checkpoints)
        #expect(try await reopened.allBookingsByID() == held)
        #expect(try await reopened.lookup(firstID) == .released)
        // New ids continue after every id given before, released ones included.
        let next = try await reopened.reserve(Self.request(day: 150, 0, &rng), at: Self.morning(150))
        #expect(next.id > held.map(\.id).max() ?? firstID)
        await reopened.close()
    }

    @Test("power lost at any moment of a run with automatic checkpoints and retention loses nothing acknowledged")
    func crashesLoseNothing() async throws {
        for seed in 0..<24 {
            let disk = SimulatedDisk(seed: UInt64(seed))
            let checkpoints = Checkpoints(afterRecords: 15, afterBytes: nil, retainDays: 0)
            let store = try JournalStore(files: disk, rules: Self.rules, shards: 2, checkpoints: checkpoints)
            var rng = SplitMix64(seed: UInt64(seed) + 100)
            disk.crash(afterCalls: 40 + rng.below(400))
            var acknowledged: [Booking] = []
            var invoked: Set<RequestID> = []
            var last = Self.morning(0)
            run: for d in 0..<40 {
                for k in 0..<12 {
                    let request = Self.request(day: d, k, &rng)
                    invoked.insert(request.requestID ?? "")
                    last = Self.morning(d)
                    do { acknowledged.append(try await store.reserve(request, at: last)) } catch is Rejection {
                    } catch { break run }
                }
            }
            await store.close()
            let reopened = try JournalStore(files: SimulatedDisk(disk.survivors), rules: Self.rules)
            let cutoff = Self.rules.latestReleasableDate(at: last)
            for booking in acknowledged {
                let found = try await reopened.lookup(booking.id)
                if booking.slot.date < cutoff, found == .released { continue }
                #expect(found == .booking(booking), "seed \(seed): acknowledged \(booking.id) recovered as \(found)")
            }
            for booking in try await reopened.allBookingsByID() {
                #expect(invoked.contains(booking.requestID ?? ""), "seed \(seed): \(booking.id) never attempted")
            }
            await reopened.close()
        }
    }
}
