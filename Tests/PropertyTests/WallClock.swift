import Foundation
import SlotScheduler
import SlotSimulation
import Synchronization

/// Wall-clock arithmetic for the reference model, by brute force over Foundation's `TimeZone`.
///
/// Deliberately independent of the library's `ZoneClock` tables: a local (date, hour) starts at
/// the earliest instant whose local wall time reads exactly that date and hour; if no instant
/// does, the local time does not exist (the DST gap).
enum WallClock {
    static let london: TimeZone = TimeZone(identifier: "Europe/London") ?? TimeZone.current
    private static let cache = Mutex<[Int64: Int64?]>([:])

    static func offset(at instant: Int64) -> Int64 {
        Int64(london.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
    }

    /// The instant local `hour` of `date` starts in Europe/London, or `nil` if it does not exist.
    static func start(date: LocalDate, hour: Int) -> Int64? {
        let local = Int64(date.dayNumber) * 86_400 + Int64(hour) * 3_600
        if let cached = cache.withLock({ $0[local] }) { return cached }
        var found: Int64?
        var t = local - 15 * 3_600
        while t <= local + 15 * 3_600 {
            if t + offset(at: t) == local {
                found = t
                break
            }
            t += 900
        }
        cache.withLock { $0[local] = found }
        return found
    }

    /// The local date in Europe/London at `instant`.
    static func localDay(at instant: Int64) -> Int32 {
        let local = instant + offset(at: instant)
        return Int32((local >= 0 ? local : local - 86_399) / 86_400)
    }
}

/// The reference model with all stations in Europe/London (the generators only make those), on
/// the brute-force ``WallClock``.
struct LondonClock: ModelClock {
    func start(of slot: Slot) -> Int64? { WallClock.start(date: slot.date, hour: slot.hour) }
    func localDay(of station: StationID, at instant: Int64) -> Int32 { WallClock.localDay(at: instant) }
}

extension ReferenceModel {
    init(stations: [Station], policy: Policy) {
        self.init(stations: stations, policy: policy, clock: LondonClock())
    }
}
