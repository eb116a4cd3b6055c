import SlotScheduler

extension Instant {
    /// `seconds` later (earlier when negative), held within `Int64`'s range: times from a
    /// station or a policy cannot overflow the arithmetic.
    func offset(by seconds: Int64) -> Instant {
        let (sum, overflow) = secondsSinceEpoch.addingReportingOverflow(seconds)
        return Instant(secondsSinceEpoch: overflow ? (seconds < 0 ? .min : .max) : sum)
    }
}
