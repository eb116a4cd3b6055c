import PropertyBased
import SlotScheduler
import SlotSimulation
import Testing

/// Every ``Policy`` field that changes a verdict is varied by some property generator, so the
/// properties compare the library with the reference model under each rule. The fields are read
/// by reflection: a field added to `Policy` fails this test until a generator varies it.
@Suite struct PolicyCoverageTests {
    /// Policies drawn from each generator of worlds the properties run, with a fixed seed.
    static func samples(_ count: Int = 200) -> [(generator: String, policies: [Policy])] {
        var rng = Xoshiro(seed: (34, 6, 2, 1))
        return [
            ("Generators.world", (0..<count).map { _ in Generators.world.run(using: &rng).policy }),
            ("HoldProperties.worlds", (0..<count).map { _ in HoldProperties.worlds.run(using: &rng).policy }),
            ("CheckInProperties.worlds", (0..<count).map { _ in CheckInProperties.worlds.run(using: &rng).policy }),
        ]
    }

    /// The fields of `value` down to plain values, by path (`noShowLimit.days`): an optional adds
    /// `path?` (`nil` or `some`) and, when present, its contents' paths.
    static func leaves(_ value: Any, path: String = "", into out: inout [String: String]) {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            out[path + "?"] = mirror.children.isEmpty ? "nil" : "some"
            if let wrapped = mirror.children.first { leaves(wrapped.value, path: path, into: &out) }
        case .struct where !mirror.children.isEmpty:
            for child in mirror.children {
                let label = child.label ?? "?"
                leaves(child.value, path: path.isEmpty ? label : path + "." + label, into: &out)
            }
        default:
            out[path] = String(describing: value)
        }
    }

    static func leaves(_ policy: Policy) -> [String: String] {
        var out: [String: String] = [:]
        leaves(policy, into: &out)
        return out
    }

    /// Each field path of a policy with every optional set takes at least two values among the
    /// policies of one generator.
    @Test func everyPolicyFieldIsVaried() {
        let full = Policy(
            userLimits: [.init(user: 1, limit: 1)], rescheduleCutoff: .seconds(60), earlyCheckIn: .seconds(60),
            noShowLimit: .init(noShows: 1, days: 1, limit: 1))
        let paths = Self.leaves(full).keys.sorted()
        #expect(paths.contains("noShowLimit.days") && paths.contains("userLimits"), "reflection found \(paths)")
        let samples = Self.samples().map { sample in
            (sample.generator, sample.policies.map { Self.leaves($0) })
        }
        for path in paths {
            let varying = samples.filter { _, leaves in Set(leaves.compactMap { $0[path] }).count >= 2 }.map(\.0)
            #expect(!varying.isEmpty, "no generator varies Policy.\(path)")
        }
    }

    /// The main generator, which every invariant property runs, varies the rules the issue found
    /// outside the properties: per-user limits above and below the default, every kind of
    /// horizon, and no-show limits (each part) with a grace shorter than the hour.
    @Test func mainGeneratorReachesEveryLimitRule() {
        let policies = Self.samples()[0].policies
        let overrides = policies.flatMap { policy in policy.userLimits.map { ($0.limit, policy.maxUpcomingBookings) } }
        #expect(overrides.contains { $0 > $1 }, "no per-user limit above the default")
        #expect(overrides.contains { $0 < $1 }, "no per-user limit below the default")
        #expect(Set(policies.map { $0.userLimits.count }) == [0, 1, 2])
        let horizons = Set(
            policies.map { policy -> String in
                switch policy.horizon {
                case .unlimited: "unlimited"
                case .lastDate: "lastDate"
                case .rollingDays: "rollingDays"
                }
            })
        #expect(horizons == ["unlimited", "lastDate", "rollingDays"])
        let rules = policies.compactMap(\.noShowLimit)
        #expect(!rules.isEmpty && rules.count < policies.count, "no-show limits on and off")
        #expect(Set(rules.map(\.noShows)).count >= 2 && Set(rules.map(\.days)).count >= 2)
        #expect(Set(rules.map(\.limit)).count >= 2)
        #expect(policies.contains { $0.noShowLimit != nil && $0.noShowGraceSeconds < 3_600 })
        #expect(Set(policies.map(\.rescheduleCutoffSeconds)).count >= 3, "reschedule cutoffs nil and set")
    }

    /// How many reservations in 200 sequences of `commands` (in worlds of ``Generators/world``)
    /// each limit rule decides, by the reference model: the per-user override (the default limit
    /// would give the other verdict) and the no-show limit (the user's own limit would).
    static func decided<S>(by commands: Generator<[RawCommand], S>) -> (override: Int, noShow: Int) {
        var rng = Xoshiro(seed: (34, 6, 2, 2))
        var (override, noShow) = (0, 0)
        for _ in 0..<200 {
            let world = Generators.world.run(using: &rng)
            guard var runner = Runner(world: world) else { continue }
            for raw in commands.run(using: &rng) {
                let (model, now) = (runner.model, runner.now)
                if case .reserve(let request) = Command.resolve(
                    raw, world: world, model: model, history: runner.history, now: now)
                {
                    switch model.decideReserve(request, at: now) {
                    case .accept, .refuse(.userLimitReached):
                        let t = now.secondsSinceEpoch
                        let count = model.upcomingCount(of: request.user, at: t)
                        let own = model.limit(for: request.user)
                        if (count >= own) != (count >= world.policy.maxUpcomingBookings) { override += 1 }
                        if (count >= model.limit(for: request.user, at: t)) != (count >= own) { noShow += 1 }
                    default: break
                    }
                }
                _ = runner.step(raw)
            }
        }
        return (override, noShow)
    }

    /// The invariant properties' sequences reach verdicts that only the per-user overrides and
    /// the no-show limit decide, so a library that ignored either would disagree with the model.
    @Test func limitRulesDecideSomeVerdicts() {
        let main = Self.decided(by: Generators.commands)
        #expect(main.override > 0, "no reservation of Generators.commands decided by a per-user limit")
        let timePassing = Self.decided(by: Generators.timePassingCommands)
        #expect(timePassing.override > 0, "no reservation of timePassingCommands decided by a per-user limit")
        #expect(timePassing.noShow > 0, "no reservation of timePassingCommands decided by the no-show limit")
    }
}
