import SlotScheduler
import SlotSimulation
import Synchronization
import Testing

@testable import SlotSchedulerJournal

@Suite("Journal power loss (simulated disk)")
struct PowerLossTests {
    /// Six callers book and cancel concurrently (one also checkpoints) until the power goes at a
    /// random write or sync; the disk then keeps its synced bytes plus some unsynced writes. The
    /// next round opens what survived and checks it against everything acknowledged so far.
    @Test(
        "acknowledged bookings survive power loss at random moments; nothing is invented",
        arguments: [SimulatedDisk.Loss.subset, .prefix])
    func powerLoss(_ loss: SimulatedDisk.Loss) async throws {
        var rng = SplitMix64(seed: loss == .subset ? 1013 : 2027)
        var image: [String: [UInt8]] = [:]
        var model = ClientModel()
        var crashes = 0
        var repaired = 0
        var previousSynced: [String: Int] = [:]
        for round in 0..<30 {
            let disk = SimulatedDisk(image, seed: rng.next(), loss: loss)
            let store: JournalStore
            do {
                store = try JournalStore(files: disk, rules: JournalFixture.rules, shards: 4)
            } catch {
                // A hole of lost writes before surviving ones ends the journal (Recovery's
                // `isLostWrite`); a refusal left, after a write lost in part, must lie past what
                // was synced, so cutting there (as an operator would) loses nothing acknowledged.
                let name = String(error.file.dropFirst("/simulated/".count))
                let synced = previousSynced[name] ?? 0
                #expect(loss == .subset && error.kind == .corrupt && (error.offset ?? -1) >= synced, "\(error)")
                guard let offset = error.offset, (error.offset ?? -1) >= synced else { return }
                image[name] = Array(image[name]?.prefix(offset) ?? [])
                repaired += 1
                continue
            }
            let recovered = try await store.allBookingsByID()
            let problems = model.problems(in: recovered, rules: JournalFixture.rules, now: JournalFixture.now)
            #expect(problems.isEmpty, "round \(round): \(problems.prefix(5))")
            if !problems.isEmpty { return }
            disk.crash(afterCalls: 1 + rng.below(80))
            let seeds = (0..<6).map { _ in rng.next() }
            // Earlier rounds' bookings still active, dealt to the callers to cancel.
            let active = recovered.filter { $0.status == .active }
            let seen = Shared()
            await withTaskGroup(of: Void.self) { tasks in
                for (t, seed) in seeds.enumerated() {
                    let mine = active.enumerated().filter { $0.offset % 6 == t }.map(\.element)
                    tasks.addTask {
                        await Self.client(t, seed: seed, round: seen, store: store, tag: "\(round)", mine: mine)
                    }
                }
            }
            model.merge(seen.model.withLock { $0 })
            if disk.syncedLengths.isEmpty { await store.close() } else { crashes += 1 }
            image = disk.survivors
            previousSynced = disk.syncedLengths
        }
        let final = try JournalStore(files: SimulatedDisk(image), rules: JournalFixture.rules)
        let problems = model.problems(
            in: try await final.allBookingsByID(), rules: JournalFixture.rules, now: JournalFixture.now)
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(crashes >= 20 && model.acknowledged.count > 50, "crashes \(crashes), acked \(model.acknowledged.count)")
        // Lost writes read as zeros, which end the journal: no power cut needs an operator.
        #expect(repaired == 0)
    }

    /// What the callers of one round saw.
    final class Shared: Sendable {
        let model = Mutex(ClientModel())
    }

    static func client(_ t: Int, seed: UInt64, round seen: Shared, store: JournalStore, tag: String, mine: [Booking])
        async
    {
        var rng = SplitMix64(seed: seed)
        var mine = mine
        for i in 0..<40 {
            do {
                if t == 0, i == 10 + rng.below(20) {
                    try await store.checkpoint()
                } else if !mine.isEmpty, rng.chance(0.3) {
                    let b = mine.remove(at: rng.below(mine.count))
                    _ = try await store.cancel(b.id, by: b.user, at: JournalFixture.now)
                    seen.model.withLock { _ = $0.cancelled.insert(b.id) }
                } else {
                    let id = RequestID("p\(tag)-\(t)-\(i)")
                    let request = ReservationRequest(
                        slot: JournalFixture.slot(&rng), user: UserID(UInt64(rng.below(JournalFixture.users))),
                        requestID: id)
                    seen.model.withLock { $0.invoked[id] = request.user }
                    let b = try await store.reserve(request, at: JournalFixture.now)
                    seen.model.withLock { $0.acknowledged[id] = b }
                    mine.append(b)
                }
            } catch let rejection as Rejection {
                if let id = rejection.requestID { seen.model.withLock { _ = $0.refused.insert(id) } }
            } catch {
                return  // the power went
            }
        }
    }
}
