import PropertyBased
import SlotScheduler
import SlotSimulation
import Testing

/// Reminders, found through their index by fire hour, agree with the model's walk of every
/// booking: the ordinary commands with every reservation asking for a reminder (so many hours
/// hold reminders), then windows of half an hour to a day and a half slid over the dates, after
/// cancels, displacements, clocks moved back and forth.
@Suite struct ReminderProperties {
    static let count = iterations(150)

    /// A command whose reservations all ask for a reminder (0 to 3.5 hours before the start).
    static func withReminder(_ raw: RawCommand) -> RawCommand {
        var raw = raw
        if raw.kind < 30 { raw.kind = 38 + raw.kind % 7 }
        return raw
    }

    @Test(arguments: [1, 3])
    func dueAsTheModelSays(shards: Int) async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands) { world, commands in
            guard var runner = Runner(world: world, schedulerShards: shards) else { return }
            var trace: [String] = []
            for raw in commands.map(Self.withReminder) {
                let step = runner.step(raw)
                trace.append("\(step.index): \(step.command) at \(step.now) -> \(step.outcome)")
                guard checkMatchesModel(step) else {
                    Issue.record(Comment(rawValue: "in \(world)\n" + trace.joined(separator: "\n")))
                    return
                }
            }
            guard Self.slidingWindowsMatch(runner) else {
                Issue.record(Comment(rawValue: "sliding windows, in \(world)\n" + trace.joined(separator: "\n")))
                return
            }
        }
    }

    /// Windows of 30 minutes, 100 minutes, 5 hours and 36 hours, each starting every 50 minutes
    /// from two days before the DST date to three days after.
    static func slidingWindowsMatch(_ runner: Runner) -> Bool {
        let first = Instant.utc(runner.world.dstDate.adding(days: -2), hour: 0).secondsSinceEpoch
        for length in [1_800, 6_000, 18_000, 129_600] as [Int64] {
            for from in stride(from: first, to: first + 5 * 86_400, by: 3_000) {
                let window = Instant(secondsSinceEpoch: from)..<Instant(secondsSinceEpoch: from + length)
                let due = DueReminders(
                    window: window, ledger: runner.ledger.remindersDue(in: window),
                    model: runner.model.remindersDue(in: window),
                    scheduler: runner.scheduler.map { runner.normalize($0.remindersDue(in: window)) })
                guard checkRemindersMatchModel(due) else { return false }
            }
        }
        return true
    }
}
