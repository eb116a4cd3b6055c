import Foundation

extension Instant {
    /// The instant of `date`, rounded down to a whole second. A date beyond the range of `Int64`
    /// seconds is clamped to it; a NaN date (which Foundation can make) becomes the epoch.
    public init(_ date: Date) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        if seconds.isNaN {
            self.init(secondsSinceEpoch: 0)
        } else if seconds >= 0x1p63 {
            self.init(secondsSinceEpoch: .max)
        } else if seconds <= -0x1p63 {
            self.init(secondsSinceEpoch: .min)
        } else {
            self.init(secondsSinceEpoch: Int64(seconds))
        }
    }
}

extension Date {
    /// The date of `instant`.
    public init(_ instant: Instant) { self.init(timeIntervalSince1970: TimeInterval(instant.secondsSinceEpoch)) }
}
