/// Queries on interned slots and stations: the same answers as the `Slot`- and `StationID`-keyed
/// queries, without building or hashing a string. For callers that already hold a ``SlotRef``
/// (from ``Catalog/resolve(_:)``), such as the simulator's deterministic mode.
extension Ledger {
    /// Whether the slot `ref` names could be booked at `now` by someone under their limit, and if
    /// not, why: the same answer as `status(of: Slot, at:)` gives for the slot `ref` was resolved
    /// from; ``SlotStatus/nonexistent`` for a reference another catalog issued.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    public func status(of ref: SlotRef, at now: Instant) -> SlotStatus {
        guard rules.catalog.owns(ref) else { return .nonexistent }
        return slots.status(ref, now: now.secondsSinceEpoch, rules: rules)
    }
}

extension Catalog {
    /// The local date at `now` of the station with catalog index `station` (``SlotRef/station``):
    /// ``localDate(of:at:)`` without the station id lookup. For an index that is not one of
    /// ``stations``, the UTC date (before, it indexed past the end and trapped).
    @inline(__always)
    public func localDate(ofStation station: Int32, at now: Instant) -> LocalDate {
        guard station >= 0, Int(station) < stations.count else {
            return LocalDate(dayNumber: Int32(clamping: Instant.floorDivide(now.secondsSinceEpoch, 86_400).quotient))
        }
        return LocalDate(dayNumber: zone(of: station).localDay(at: now.secondsSinceEpoch))
    }
}
