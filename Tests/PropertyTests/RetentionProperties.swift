import PropertyBased
import SlotScheduler
import SlotSimulation
import Testing

/// Retention: releasing the dates before random cutoffs (safe or not) at random points, and
/// restoring from a snapshot taken after a release, changes no verdict. The ledger, a sharded
/// scheduler and the reference model (which only marks released dates) agree at every later
/// step, released bookings are looked up as released, and a too-late cutoff is refused by all.
@Suite struct RetentionProperties {
    static let count = iterations(150)

    /// Where releases happen (step index → cutoff relative to today's London date) and at which
    /// step the faces are replaced by restores of their snapshots.
    static let plan = zip(
        zip(Gen.int(in: 0...40), Gen.int(in: -3...1)).array(of: 0...4), Gen.int(in: 0...45), Gen.int(in: 1...4))

    @Test(arguments: [1, 3])
    func releaseThenContinue(shards: Int) async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands, Self.plan) {
            world, commands, plan in
            let (releases, restoreAt, restoreShards) = plan
            guard var runner = Runner(world: world, schedulerShards: shards) else { return }
            var trace: [String] = []
            for (index, raw) in commands.enumerated() {
                for (at, offset) in releases where at == index {
                    let cutoff = LocalDate(
                        dayNumber: WallClock.localDay(at: runner.now.secondsSinceEpoch) + Int32(offset))
                    trace.append("release before \(cutoff) at \(runner.now)")
                    guard Self.release(&runner, before: cutoff, trace: trace) else { return }
                }
                if index == restoreAt {
                    trace.append("restore from snapshots (scheduler: \(restoreShards) shards)")
                    guard Self.restore(&runner, schedulerShards: restoreShards, trace: trace) else { return }
                }
                let step = runner.step(raw)
                trace.append("\(step.index): \(step.command) at \(step.now) -> \(step.outcome)")
                guard checkMatchesModel(step), Self.lookupsMatch(runner) else {
                    Issue.record(Comment(rawValue: "in \(world)\n" + trace.joined(separator: "\n")))
                    return
                }
            }
        }
    }

    /// Releases on every face; all accept or all refuse, and lookups then agree with the model.
    static func release(_ runner: inout Runner, before cutoff: LocalDate, trace: [String]) -> Bool {
        let now = runner.now
        let model = runner.model.release(before: cutoff, at: now)
        let ledger = (try? runner.ledger.releaseDays(before: cutoff, at: now)) != nil
        var scheduler = model
        if let s = runner.scheduler { scheduler = (try? s.releaseDays(before: cutoff, at: now)) != nil }
        #expect(
            ledger == model && scheduler == model, "release: ledger \(ledger), scheduler \(scheduler), model \(model)")
        let ok = ledger == model && scheduler == model && lookupsMatch(runner)
        if !ok { Issue.record(Comment(rawValue: trace.joined(separator: "\n"))) }
        return ok
    }

    /// Replaces the ledger and the scheduler by restores of their snapshots (the scheduler's
    /// into another shard count); each restore gives back the snapshot it came from.
    static func restore(_ runner: inout Runner, schedulerShards: Int, trace: [String]) -> Bool {
        do {
            let snapshot = runner.ledger.snapshot()
            runner.ledger = try Ledger(rules: runner.rules, snapshot: snapshot)
            #expect(runner.ledger.snapshot() == snapshot)
            var ok = runner.ledger.snapshot() == snapshot
            if let s = runner.scheduler {
                let schedulerSnapshot = s.snapshot()
                let restored = try Scheduler(rules: runner.rules, shards: schedulerShards, snapshot: schedulerSnapshot)
                #expect(restored.snapshot().bookings == schedulerSnapshot.bookings)
                ok = ok && restored.snapshot().bookings == schedulerSnapshot.bookings
                runner.scheduler = restored
            }
            if !ok { Issue.record(Comment(rawValue: trace.joined(separator: "\n"))) }
            return ok && lookupsMatch(runner)
        } catch {
            Issue.record(Comment(rawValue: "restore failed: \(error)\n" + trace.joined(separator: "\n")))
            return false
        }
    }

    /// Every booking the model ever made is looked up as the model says: released or held as it is.
    static func lookupsMatch(_ runner: Runner) -> Bool {
        for booking in runner.model.bookings {
            let expected: BookingLookup = runner.model.isReleased(booking) ? .released : .booking(booking)
            let ledger = runner.ledger.lookup(booking.id)
            #expect(ledger == expected, "ledger looks up \(booking.id) as \(ledger); model \(expected)")
            guard ledger == expected else { return false }
            if let scheduler = runner.scheduler {
                var found = scheduler.lookup(runner.toScheduler(booking.id))
                if case .booking(let b) = found { found = .booking(runner.normalize(b)) }
                #expect(found == expected, "scheduler looks up \(booking.id) as \(found); model \(expected)")
                guard found == expected else { return false }
            }
        }
        let unknown = BookingID(1 << 39)
        return runner.ledger.lookup(unknown) == .unknown && runner.scheduler?.lookup(unknown) ?? .unknown == .unknown
    }
}
