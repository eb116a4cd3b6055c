#!/usr/bin/env python3
"""The deliberate bugs of Scripts/mutation-check.sh, as exact text replacements.

Usage: mutants.py --list | --target NAME | --describe NAME | --filter NAME | --apply NAME

--filter prints the `swift test --filter` that must catch the mutant (PropertyTests unless the
mutant says otherwise).

--apply fails (exit 2) unless every `old` text occurs exactly once in the target file, so a
mutant can never silently become a no-op when the sources change.
"""
import sys

SCHEDULER_RESERVE_OLD = """        return shards.withLock(shard(of: resolved.ref.station)) { slots in
            stripes.withLock(stripe) { users in
                Decisions.reserve(resolved, now: now.secondsSinceEpoch, rules: rules, slots: &slots, users: &users)
            }
        }
"""

# Check on a copy under one lock acquisition, then (after a busy "database round trip") insert under
# another acquisition without checking again: the classic check-then-insert race.
SCHEDULER_RESERVE_NEW = """        let check = shards.withLock(shard(of: resolved.ref.station)) { slots in
            stripes.withLock(stripe) { users in
                var trialSlots = slots
                var trialUsers = users
                return Decisions.reserve(
                    resolved.ref, user: resolved.user, requestID: resolved.requestID, reminder: resolved.reminder,
                    now: now.secondsSinceEpoch, rules: rules, slots: &trialSlots, users: &trialUsers)
            }
        }
        if check.isAccepted && !check.isRepeat {
            var spin = 0
            for i in 0..<50_000 { spin &+= i }  // the "database round trip" between check and insert
            precondition(spin != 1)
        }
        return shards.withLock(shard(of: resolved.ref.station)) { slots in
            stripes.withLock(stripe) { users in
                guard check.isAccepted && !check.isRepeat else {
                    return Decisions.reserve(resolved, now: now.secondsSinceEpoch, rules: rules, slots: &slots, users: &users)
                }
                let block = slots.pageIndex(resolved.ref.day)
                let u = users.findOrInsert(resolved.user)
                let id = Decisions.commit(
                    resolved, start: check.start, block: block, user: u, now: now.secondsSinceEpoch, slots: &slots,
                    users: &users)
                guard let record = slots.record(of: id) else { return .failure(Rejection(.unknownBooking)) }
                return .success(Reservation(booking: slots.booking(record: record, catalog: rules.catalog), isReplay: false))
            }
        }
"""

ANY_SOCKET_OLD = """        let result = shards.withLock(shard(of: resolved.candidates[0].station)) { slots in
            stripes.withLock(stripe) { users in
                Decisions.reserveAny(resolved, now: now.secondsSinceEpoch, rules: rules, slots: &slots, users: &users)
            }
        }
"""

# Choose the socket under one lock acquisition (on a copy), then book it under another without
# checking again: two threads choose the same first free socket and both get it.
ANY_SOCKET_NEW = """        let shard = shard(of: resolved.candidates[0].station)
        let trial = shards.withLock(shard) { slots in
            stripes.withLock(stripe) { users in
                var trialSlots = slots
                var trialUsers = users
                return Decisions.reserveAny(
                    resolved, now: now.secondsSinceEpoch, rules: rules, slots: &trialSlots, users: &trialUsers)
            }
        }
        guard case .success(let chosen) = trial, !chosen.isReplay, let ref = try? rules.catalog.resolve(chosen.booking.slot)
        else {
            switch trial {
            case .success(let reservation): return reservation
            case .failure(let rejection): throw rejection
            }
        }
        var spin = 0
        for i in 0..<50_000 { spin &+= i }  // the "database round trip" between choosing and booking
        precondition(spin != 1)
        let result: Result<Reservation, Rejection> = shards.withLock(shard) { slots in
            stripes.withLock(stripe) { users in
                let block = slots.pageIndex(ref.day)
                let u = users.findOrInsert(resolved.user)
                let id = Decisions.commit(
                    ResolvedRequest(ref: ref, user: resolved.user, requestID: resolved.requestID, reminder: resolved.reminder),
                    start: chosen.booking.start.secondsSinceEpoch, block: block, user: u, now: now.secondsSinceEpoch,
                    slots: &slots, users: &users)
                guard let record = slots.record(of: id) else { return .failure(Rejection(.unknownBooking)) }
                return .success(Reservation(booking: slots.booking(record: record, catalog: rules.catalog), isReplay: false))
            }
        }
"""

RESCHEDULE_OLD = """        let result = shards.withLock(shard) { slots in
            stripes.withLock(stripe) { users in
                Decisions.reschedule(resolved, now: now.secondsSinceEpoch, rules: rules, slots: &slots, users: &users)
            }
        }
"""

# Decide the move on a copy under one lock acquisition, then move under another without checking
# again: two moves (or a move and a reservation) into one free slot both succeed.
RESCHEDULE_NEW = """        let trial = shards.withLock(shard) { slots in
            stripes.withLock(stripe) { users in
                var trialSlots = slots
                var trialUsers = users
                return Decisions.reschedule(
                    resolved, now: now.secondsSinceEpoch, rules: rules, slots: &trialSlots, users: &trialUsers)
            }
        }
        guard case .success(let decided) = trial, !decided.isReplay else {
            switch trial {
            case .success(let reservation): return reservation
            case .failure(let rejection): throw rejection
            }
        }
        var spin = 0
        for i in 0..<50_000 { spin &+= i }  // the "database round trip" between deciding and moving
        precondition(spin != 1)
        let result: Result<Reservation, Rejection> = shards.withLock(shard) { slots in
            stripes.withLock(stripe) { users in
                guard let record = slots.record(of: resolved.booking) else { return .failure(Rejection(.unknownBooking)) }
                Decisions.move(
                    record, to: resolved.to, start: decided.booking.start.secondsSinceEpoch,
                    block: slots.pageIndex(resolved.to.day), requestID: resolved.requestID, now: now.secondsSinceEpoch,
                    slots: &slots, users: &users)
                return .success(Reservation(booking: slots.booking(record: record, catalog: rules.catalog), isReplay: false))
            }
        }
"""

MUTANTS = [
    dict(
        name="user-limit-off-by-one",
        describe="user limit checked with `>` instead of `>=` (one booking too many)",
        file="Sources/SlotScheduler/Ledger/Decisions.swift",
        edits=[("upcomingCount(u, at: now, reaching: limit) >= limit {",
                "upcomingCount(u, at: now, reaching: limit) > limit {")],
    ),
    dict(
        name="past-check-lte",
        describe="past check `start <= now` instead of `start < now` (a slot starting now is refused)",
        file="Sources/SlotScheduler/Rules/Rules.swift",
        edits=[("if start < now { return (.slotInPast, start) }",
                "if start <= now { return (.slotInPast, start) }")],
    ),
    dict(
        name="limit-counts-past",
        describe="user limit counts bookings whose hour has already ended",
        file="Sources/SlotScheduler/Ledger/UserBook.swift",
        edits=[("            if Booking.isUpcoming(start: entries[Int(e)].start, at: now) {\n                count &+= 1",
                "            if true {\n                count &+= 1")],
    ),
    dict(
        name="limit-forgets-ended-list",
        describe="a limit check whose `now` is earlier than an earlier check's ignores the bookings that check saw ended",
        file="Sources/SlotScheduler/Ledger/UserBook.swift",
        edits=[("        if endedMayCount {\n", "        if false {\n")],
        # The property commands move `now` back too rarely to reach this case reliably;
        # LimitHistoryTests builds it on purpose (caught there by hand on 2026-11-23).
        filter="PropertyTests|LimitHistoryTests",
    ),
    dict(
        name="cancel-keeps-slot",
        describe="cancel marks the booking cancelled but does not free its slot",
        file="Sources/SlotScheduler/Ledger/Decisions.swift",
        edits=[("        release(record, as: .cancelled, slots: &slots)\n",
                "        slots.records[record].status = .cancelled\n")],
    ),
    dict(
        name="cancel-by-non-owner",
        describe="cancel (and move) does not check the owner",
        file="Sources/SlotScheduler/Rules/Rules.swift",
        edits=[("        guard owner == user else { return .notOwner }\n", "")],
    ),
    dict(
        name="close-drops-silently",
        describe="closing hours displaces bookings but reports none",
        file="Sources/SlotScheduler/Ledger/Decisions.swift",
        edits=[("        return .success(displaced)\n", "        return .success([])\n")],
    ),
    dict(
        name="horizon-off-by-one",
        describe="last-date horizon accepts one day beyond the last date",
        file="Sources/SlotScheduler/Rules/Rules.swift",
        edits=[("if let lastDay, ref.day > lastDay {", "if let lastDay, ref.day > lastDay &+ 1 {")],
    ),
    dict(
        name="check-then-insert",
        describe="Scheduler.reserve checks under one lock acquisition and inserts under another",
        file="Sources/SlotScheduler/Scheduler/Scheduler.swift",
        edits=[(SCHEDULER_RESERVE_OLD, SCHEDULER_RESERVE_NEW)],
    ),
    dict(
        name="dst-gap-accepted",
        describe="a local hour skipped by DST gets a start instant instead of being refused",
        file="Sources/SlotScheduler/Time/ZoneClock.swift",
        edits=[("        return first\n", "        return first ?? (local - Int64(offset(at: local - 86_400)))\n")],
    ),
    dict(
        name="request-id-unbounded",
        describe="a reservation's request id is not checked against the IdentifierRule (a 1 MB id is stored)",
        file="Sources/SlotScheduler/Rules/Rules+Public.swift",
        filter="ExtremeInput",
        edits=[("if let id = request.requestID, !IdentifierRule.isValid(id.rawValue) {",
                "if let id = request.requestID, id.rawValue.isEmpty {")],
    ),
    dict(
        name="journal-ack-before-sync",
        describe="the journal store acknowledges after write(2), without fdatasync",
        file="Sources/SlotSchedulerJournal/Store/JournalStore+GroupCommit.swift",
        filter="JournalTests",
        edits=[("                    try file.sync(metadata: false)\n", "")],
    ),
    dict(
        name="journal-no-checksum",
        describe="journal recovery does not check record checksums",
        file="Sources/SlotSchedulerJournal/Format/RecordFormat.swift",
        filter="JournalTests",
        edits=[("guard CRC32C.update(CRC32C.checksum(bytes[offset..<offset + 4]), payload) == crc else {",
                "guard crc == crc || CRC32C.update(CRC32C.checksum(bytes[offset..<offset + 4]), payload) == crc else {")],
    ),
    dict(
        name="history-invoke-buffered",
        describe="a threads-mode run against a store buffers its invoke lines (a kill loses calls the store applied)",
        file="Sources/SlotSimulation/Output/HistoryStream.swift",
        filter="StreamedHistoryTests",
        edits=[("        if stream.flushEachOperation { flush() }\n", "")],
    ),
    dict(
        name="restore-keeps-epoch",
        describe="after a restore across shard layouts, new booking ids stay in the restored ids' epoch",
        file="Sources/SlotScheduler/Ledger/SlotBook+Restore.swift",
        filter="RestoreLayout",
        edits=[("        idPrefix = epoch << Self.epochShift | shard << Self.shardShift\n",
                "        idPrefix = shard << Self.shardShift\n")],
    ),
    dict(
        name="release-remembers-request-ids",
        describe="a request id whose booking was released still answers as a repeat (or a conflict) after the release",
        file="Sources/SlotScheduler/Ledger/Decisions+SlotCheck.swift",
        filter="RetentionProperties|RetentionTests",
        edits=[("            seen.ref.day >= slots.releasedBefore\n", "            true\n")],
    ),
    dict(
        name="release-remembers-reschedule-ids",
        describe="a reschedule request id whose move went to a released date stays in memory and in snapshots after the release",
        file="Sources/SlotScheduler/Ledger/Ledger+Retention.swift",
        filter="RetentionProperties|RetentionTests",
        edits=[("        users.forgetMoves(before: cutoff.dayNumber)\n", "")],
    ),
    dict(
        name="release-snapshot-without-last-ids",
        describe="a ledger's snapshot after a release omits the last ids, so a restore gives released ids again",
        file="Sources/SlotScheduler/Ledger/Replay.swift",
        filter="RetentionProperties|RetentionTests",
        edits=[("            snapshot.lastIDs = slots.lastIDs().sorted()\n", "            snapshot.lastIDs = []\n")],
    ),
    dict(
        name="ids-compared-canonically",
        describe="identifiers compare by Swift's canonical equivalence, not by their bytes (NFD names NFC)",
        file="Sources/SlotScheduler/Model/IdentifierRule.swift",
        filter="InputRules",
        edits=[("        guard a.utf8.count == b.utf8.count else { return false }\n        return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }\n",
                "        return a == b\n")],
    ),
    dict(
        name="any-socket-race",
        describe="Scheduler any-socket reserve chooses the socket under one lock acquisition and books it under another (two requests given one socket)",
        file="Sources/SlotScheduler/Scheduler/Scheduler+AnySocket.swift",
        filter="AnySocketTests|LifecycleProperties|LifecycleThreadsTests",
        edits=[(ANY_SOCKET_OLD, ANY_SOCKET_NEW)],
    ),
    dict(
        name="any-socket-ignores-hours",
        describe="any-socket choice skips the opening-hours check (picks a closed socket, refused instead of the next free one)",
        file="Sources/SlotScheduler/Ledger/Decisions+AnySocket.swift",
        filter="AnySocketTests|LifecycleProperties|LifecycleThreadsTests",
        edits=[("            return word.isOpen(ref.hour) && (!word.isTaken(ref.hour) || slots.takenReason(ref, now: now) == nil)\n",
                "            return !word.isTaken(ref.hour) || slots.takenReason(ref, now: now) == nil\n")],
    ),
    dict(
        name="reschedule-counts-twice",
        describe="a reschedule counts the booking being moved against the user's limit as well as its new slot",
        file="Sources/SlotScheduler/Ledger/Decisions+Reschedule.swift",
        filter="RescheduleTests|LifecycleProperties",
        edits=[("if users.upcomingCount(u, at: now, reaching: limit) &- 1 >= limit {",
                "if users.upcomingCount(u, at: now, reaching: limit) >= limit {")],
    ),
    dict(
        name="reschedule-frees-before-take",
        describe="a reschedule frees the old slot before checking the new one (a refused move leaves the booking's slot free)",
        file="Sources/SlotScheduler/Ledger/Decisions+Reschedule.swift",
        filter="RescheduleTests|LifecycleProperties|LifecycleThreadsTests",
        edits=[("        let reminder: Int64? = booking.reminder < 0 ? nil : Int64(booking.reminder)\n",
                "        let reminder: Int64? = booking.reminder < 0 ? nil : Int64(booking.reminder)\n"
                "        slots.occupy(booking.ref, block: slots.pageIndex(booking.ref.day), record: nil)\n")],
    ),
    dict(
        name="reschedule-race",
        describe="Scheduler.reschedule decides the move under one lock acquisition and moves under another (two moves into one slot)",
        file="Sources/SlotScheduler/Scheduler/Scheduler+Reschedule.swift",
        filter="RescheduleConcurrencyTests|LifecycleThreadsTests",
        edits=[(RESCHEDULE_OLD, RESCHEDULE_NEW)],
    ),
    dict(
        name="confirm-after-expiry",
        describe="a confirm is accepted after its hold expired (while no one else has taken the slot)",
        file="Sources/SlotScheduler/Ledger/Decisions+Holds.swift",
        filter="HoldProperties|HoldTests|LifecycleThreadsTests",
        edits=[("        guard slots.isCurrent(hold: h), Hold.isLive(expiresAt: hold.expiresAt, at: now) else {\n",
                "        guard slots.isCurrent(hold: h) else {\n")],
    ),
    dict(
        name="hold-not-flagged",
        describe="a hold does not set its socket-day's held flag: its taken hour reads as a booking's (slotTaken, not slotHeld; taken after it expired)",
        file="Sources/SlotScheduler/Ledger/SlotBook+Holds.swift",
        filter="HoldProperties|HoldTests|LifecycleThreadsTests",
        edits=[("        words[w].markHeld()\n", "")],
    ),
    dict(
        name="release-keeps-hold-entries",
        describe="a release forgets the keys of the released days' holds but leaves an unconfirmed hold's entry in its user's list (it counts again for a clock moved back, and stays in memory)",
        file="Sources/SlotScheduler/Ledger/SlotBook+Retention.swift",
        filter="HoldProperties|RetentionHoldTests",
        edits=[("            if hold.state == .held { entries.append(", "            if hold.state == .held, h < 0 { entries.append(")],
    ),
    dict(
        name="reminder-move-unindexed",
        describe="a reschedule moves a booking with a reminder to another hour without indexing its reminder there: remindersDue no longer finds it",
        file="Sources/SlotScheduler/Ledger/Decisions+Reschedule.swift",
        filter="LifecycleProperties|ReminderTests",
        edits=[("        slots.indexReminder(of: record, previousStart: old.start)\n", "")],
    ),
    dict(
        name="reminder-cancelled-still-due",
        describe="remindersDue still lists the reminder of a cancelled or displaced booking (the schedule-sim reminder check, I10, must catch it)",
        file="Sources/SlotScheduler/Ledger/SlotBook+Reminders.swift",
        filter="ReminderStepTests",
        edits=[("        guard !isReleased(record: record), records[record].status == .active,\n", "        guard !isReleased(record: record),\n")],
    ),
    dict(
        name="reminder-window-first-hour",
        describe="remindersDue walks only the first hour of a window shorter than the hours indexed, missing the reminders of its later hours",
        file="Sources/SlotScheduler/Ledger/SlotBook+Reminders.swift",
        filter="ReminderProperties|InvariantProperties|ReminderTests",
        edits=[("            for hour in first...last {", "            for hour in first...first {")],
    ),
    dict(
        name="reminder-prune-drops-live",
        describe="a release prunes the reminder index against the hour after each entry's, dropping every live reminder",
        file="Sources/SlotScheduler/Ledger/SlotBook+Reminders.swift",
        filter="RetentionProperties|ReminderTests",
        edits=[("            let live = Set(bucket.filter { remindsInHour(Int($0), hour) }).sorted()\n", "            let live = Set(bucket.filter { remindsInHour(Int($0), hour + 1) }).sorted()\n")],
    ),
    dict(
        name="release-keeps-chunks-behind-front",
        describe="a release frees only the chunks of records in front of the first one still held: a booking far ahead keeps every record made after it in memory",
        file="Sources/SlotScheduler/Ledger/SlotBook+Retention.swift",
        filter="RetentionFarAheadTests",
        edits=[("            records.free(chunkOf: chunk.lowerBound)\n", "")],
    ),
    dict(
        name="released-hold-unknown",
        describe="a confirm or release of a hold on a released date looks for the hold instead of answering released (unknownHold, or a released booking read back)",
        file="Sources/SlotScheduler/Ledger/Decisions+Holds.swift",
        filter="HoldProperties|RetentionHoldTests",
        edits=[("        if ref.day < slots.releasedBefore {\n", "        if ref.day < slots.releasedBefore, ref.day < 0 {\n")],
    ),
    dict(
        name="hold-not-counted",
        describe="a hold's entry in its user's list never counts as upcoming: live holds count neither against the limit nor against maxHoldsPerUser",
        file="Sources/SlotScheduler/Ledger/UserBook+Holds.swift",
        filter="HoldProperties|HoldTests|LifecycleThreadsTests",
        edits=[("        expiresAt.saturatingSubtracting(Booking.durationSeconds)\n",
                "        expiresAt.saturatingSubtracting(Booking.durationSeconds) &- 86_400_000\n")],
    ),
    dict(
        name="checkin-after-grace",
        describe="a check-in is accepted after its grace (a no-show checked in late, counted as fulfilled)",
        file="Sources/SlotScheduler/Ledger/Decisions+CheckIn.swift",
        filter="CheckInProperties|CheckInTests|CheckInSimulationTests",
        edits=[("        if Booking.isNoShow(start: start, at: now, grace: policy.noShowGraceSeconds) { return .checkInClosed }\n",
                "")],
    ),
    dict(
        name="no-show-limit-ignored",
        describe="the no-show limit is never applied: a user with recent no-shows keeps their own limit",
        file="Sources/SlotScheduler/Ledger/Decisions+CheckIn.swift",
        filter="CheckInProperties|CheckInTests|CheckInSimulationTests",
        edits=[("        return count >= rule.noShows ? rule.limit : limit\n",
                "        return count >= rule.noShows ? limit : limit\n")],
    ),
    dict(
        name="utf8-surrogates-accepted",
        describe="the encoding check takes an encoded surrogate (ED A0 80) as UTF-8",
        file="Sources/SlotSimulation/Text/NotUTF8.swift",
        filter="NotUTF8Properties",
        edits=[("            case 0xED: (length, low, high) = (3, 0x80, 0x9F)\n",
                "            case 0xED: (length, low, high) = (3, 0x80, 0xBF)\n")],
    ),
    dict(
        name="checked-in-counted-as-no-show",
        describe="the no-show count ignores check-ins: a fulfilled booking lowers its user's limit like a no-show",
        file="Sources/SlotScheduler/Ledger/UserBook+CheckIn.swift",
        filter="CheckInProperties|CheckInTests|CheckInSimulationTests",
        edits=[("            entry.flags & (Self.holdFlag | Self.checkedInFlag) == 0 && entry.start >= since\n",
                "            entry.flags & Self.holdFlag == 0 && entry.start >= since\n")],
    ),
]


def find(name):
    for m in MUTANTS:
        if m["name"] == name:
            return m
    sys.exit(f"unknown mutant {name!r}")


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        for m in MUTANTS:
            print(m["name"])
        return
    if len(argv) != 3:
        sys.exit(__doc__)
    option, m = argv[1], find(argv[2])
    if option == "--target":
        print(m["file"])
    elif option == "--describe":
        print(m["describe"])
    elif option == "--filter":
        print(m.get("filter", "PropertyTests"))
    elif option == "--apply":
        with open(m["file"]) as f:
            text = f.read()
        for old, new in m["edits"]:
            n = text.count(old)
            if n != 1:
                print(f"mutant {m['name']}: expected the target text exactly once in {m['file']}, found {n}:\n{old}",
                      file=sys.stderr)
                sys.exit(2)
            text = text.replace(old, new)
        with open(m["file"], "w") as f:
            f.write(text)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
