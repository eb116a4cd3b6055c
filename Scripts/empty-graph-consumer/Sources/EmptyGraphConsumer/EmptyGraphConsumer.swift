import SlotScheduler

/// Uses the library as an importer would, so the check also proves it builds on its own.
public func defaultPolicy() -> Policy { Policy(maxUpcomingBookings: 3) }
