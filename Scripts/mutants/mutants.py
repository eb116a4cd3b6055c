#!/usr/bin/env python3
"""The deliberate bugs of Scripts/mutation-check.sh, as exact text replacements, and their results.

Usage:
  mutants.py --list                 the mutants' names, in the order below
  mutants.py --target NAME          the file it edits
  mutants.py --describe NAME        the bug, in words
  mutants.py --filter NAME          the `swift test --filter` that must catch it (PropertyTests unless
                                    the mutant says otherwise): what mutation-check.sh runs
  mutants.py --quick NAME           a faster filter that also catches it (checked by a run, see
                                    `quick`), else --filter: what the CI planting runs
  mutants.py --crash NAME           text that, in a crashed test run's log, is the crash the mutant
                                    brings (its bug is a crash): such a crash counts as caught
  mutants.py --needs NAME           the package trait its file is built with, if any (Postgres)
  mutants.py --env NAME             VAR=VALUE words its tests run with, if any (a suite run on demand)
  mutants.py --fingerprint NAME     a hash of its file and edits (a result of another text is stale)
  mutants.py --apply NAME           applies it to the working tree
  mutants.py --check                every mutant applies (each `old` text exactly once, nothing built)
                                    and the README table is exactly --table; exit 1 naming each failure
  mutants.py --pick K N             the K mutants planted at commit count N: window N mod ceil(M/K)
                                    of the M names sorted (less those with a `known_gap`), so each is
                                    planted once every ceil(M/K) commits
  mutants.py --record NAME VERDICT SECONDS DETAIL
                                    stores one result in $MUTANTS_RESULTS (default results.json here),
                                    with the run's $MUTANTS_RUN_COMMIT, $MUTANTS_RUN_STARTED, $MUTANTS_RUN_COMMAND
  mutants.py --table                the generated mutation table (from this list and results.json)
  mutants.py --write-table          writes it between the markers in Tests/PropertyTests/README.md

--apply fails (exit 2) unless every `old` text occurs exactly once in the target file, so a
mutant can never silently become a no-op when the sources change.
"""
import hashlib
import json
import os
import sys

# The "database round trip" a race mutant spends between its check and its commit, as busy work
# (no sleep: that needs a C library import, which changes the module's interface, so every
# dependent target is compiled again, minutes instead of seconds): long enough for another
# thread to run its own check in between, short enough for the tests to finish. The any-socket
# and reschedule tests meet on a slot less often than the reservation tests, so those mutants
# spin longer (about 5 ms in a debug build): a preempted thread lets the other core's run its check.
def round_trip(iterations):
    return f"""        var spin = 0
        for i in 0..<{iterations} {{ spin &+= i }}  // the "database round trip" between check and commit
        precondition(spin != 1)
"""


# The three race mutants insert, before `Scheduler.apply` takes its shard's lock, a path for one
# command that decides on a copy of the books under one acquisition of the locks and then (after a
# busy "database round trip") commits under another without deciding again. One thread alone
# behaves exactly as the real code; only the concurrency tests can catch them.
SCHEDULER_APPLY_OLD = """        let rules = rules
        return shards.withLock(shard) { slots in
"""

# Reserve: the classic check-then-insert race.
SCHEDULER_RESERVE_NEW = """        if case .reserve(let resolved) = resolved {
            let rules = self.rules
            let check = withBooks(of: resolved.ref, user: resolved.user) { slots, users in
                var trialSlots = slots
                var trialUsers = users
                return Decisions.reserve(
                    resolved.ref, user: resolved.user, requestID: resolved.requestID, reminder: resolved.reminder,
                    now: now.secondsSinceEpoch, rules: rules, slots: &trialSlots, users: &trialUsers)
            }
            if check.isAccepted && !check.isRepeat {
""" + round_trip(50_000) + """            }
            return withBooks(of: resolved.ref, user: resolved.user) { slots, users in
                guard check.isAccepted && !check.isRepeat else {
                    return Decisions.reserve(resolved, now: now.secondsSinceEpoch, rules: rules, slots: &slots, users: &users)
                        .outcome(Outcome.booked)
                }
                let block = slots.pageIndex(resolved.ref.day)
                let u = users.findOrInsert(resolved.user)
                let id = Decisions.commit(
                    resolved, start: check.start, block: block, user: u, now: now.secondsSinceEpoch, slots: &slots,
                    users: &users)
                guard let record = slots.record(of: id) else { return .refused(Rejection(.unknownBooking)) }
                return .booked(Reservation(booking: slots.booking(record: record, catalog: rules.catalog), isReplay: false))
            }
        }
""" + SCHEDULER_APPLY_OLD

# Any socket: two threads choose the same first free socket and both get it.
ANY_SOCKET_NEW = """        if case .reserveAnySocket(let resolved) = resolved {
            let rules = self.rules
            let trial = withBooks(of: resolved.candidates[0], user: resolved.user) {
                slots, users -> (Result<Reservation, Rejection>, SlotRef?, Int64) in
                var trialSlots = slots
                var trialUsers = users
                let result = Decisions.reserveAny(
                    resolved, now: now.secondsSinceEpoch, rules: rules, slots: &trialSlots, users: &trialUsers)
                guard case .success(let made) = result, !made.isReplay, let record = trialSlots.record(of: made.booking.id)
                else { return (result, nil, 0) }
                return (result, trialSlots.records[record].ref, trialSlots.records[record].start)
            }
            guard let ref = trial.1 else { return trial.0.outcome(Outcome.booked) }
""" + round_trip(2_000_000) + """            return withBooks(of: ref, user: resolved.user) { slots, users in
                let block = slots.pageIndex(ref.day)
                let u = users.findOrInsert(resolved.user)
                let id = Decisions.commit(
                    ResolvedRequest(ref: ref, user: resolved.user, requestID: resolved.requestID, reminder: resolved.reminder),
                    start: trial.2, block: block, user: u, now: now.secondsSinceEpoch, slots: &slots, users: &users)
                guard let record = slots.record(of: id) else { return .refused(Rejection(.unknownBooking)) }
                return .booked(Reservation(booking: slots.booking(record: record, catalog: rules.catalog), isReplay: false))
            }
        }
""" + SCHEDULER_APPLY_OLD

# Reschedule: two moves (or a move and a reservation) into one free slot both succeed.
RESCHEDULE_NEW = """        if case .reschedule(let resolved, _) = resolved {
            let rules = self.rules
            let trial = withBooks(shard: shard, stripe: stripe(of: resolved.user)) { slots, users in
                var trialSlots = slots
                var trialUsers = users
                return Decisions.reschedule(
                    resolved, now: now.secondsSinceEpoch, rules: rules, slots: &trialSlots, users: &trialUsers)
            }
            guard case .success(let decided) = trial, !decided.isReplay else {
                return trial.outcome { .rescheduled($0, move: nil) }
            }
""" + round_trip(2_000_000) + """            return withBooks(shard: shard, stripe: stripe(of: resolved.user)) { slots, users in
                guard let record = slots.record(of: resolved.booking) else { return .refused(Rejection(.unknownBooking)) }
                Decisions.move(
                    record, to: resolved.to, start: decided.booking.start.secondsSinceEpoch,
                    block: slots.pageIndex(resolved.to.day), requestID: resolved.requestID, now: now.secondsSinceEpoch,
                    slots: &slots, users: &users)
                return .rescheduled(
                    Reservation(booking: slots.booking(record: record, catalog: rules.catalog), isReplay: false), move: nil)
            }
        }
""" + SCHEDULER_APPLY_OLD

MUTANTS = [
    dict(
        name="user-limit-off-by-one",
        describe="user limit checked with `>` instead of `>=` (one booking too many)",
        file="Sources/SlotScheduler/StateMachine/Decisions.swift",
        quick="I2_userLimit",
        edits=[("upcomingCount(u, at: now, reaching: limit) >= limit {",
                "upcomingCount(u, at: now, reaching: limit) > limit {")],
    ),
    dict(
        name="past-check-lte",
        describe="past check `start <= now` instead of `start < now` (a slot starting now is refused)",
        file="Sources/SlotScheduler/Rules/Rules.swift",
        quick="MutantRegressionTests",
        edits=[("if start < now { return (.slotInPast, start) }",
                "if start <= now { return (.slotInPast, start) }")],
    ),
    dict(
        name="limit-counts-past",
        describe="user limit counts bookings whose hour has already ended",
        file="Sources/SlotScheduler/Storage/UserBook.swift",
        quick="I2_clockMovedBackAfterAdmissions",
        edits=[("            if Booking.isUpcoming(start: entries[Int(e)].start, at: now) {\n                count &+= 1",
                "            if true {\n                count &+= 1")],
    ),
    dict(
        name="limit-forgets-ended-list",
        describe="a limit check whose `now` is earlier than an earlier check's ignores the bookings that check saw ended",
        file="Sources/SlotScheduler/Storage/UserBook.swift",
        quick="LimitHistoryTests",
        edits=[("        if endedMayCount {\n", "        if false {\n")],
        # The property commands move `now` back too rarely to reach this case reliably;
        # LimitHistoryTests builds it on purpose (caught there by hand on 2026-11-23).
        filter="PropertyTests|LimitHistoryTests",
    ),
    dict(
        name="cancel-keeps-slot",
        describe="cancel marks the booking cancelled but does not free its slot",
        file="Sources/SlotScheduler/StateMachine/Decisions.swift",
        quick="I6_cancelFreesSlot",
        edits=[("        close(record, as: .cancelled, now: now, slots: &slots, users: &users)\n",
                "        slots.records[record].status = .cancelled\n"
                "        users.close(slots.bookingID(record: record), of: user, day: booking.ref.day)\n"
                "        slots.log(.cancelled, record, at: now)\n")],
    ),
    dict(
        name="close-keeps-user-entry",
        describe="a cancel or displacement frees the slot but leaves the booking in its user's list (the books disagree)",
        file="Sources/SlotScheduler/StateMachine/Decisions.swift",
        filter="ApplyProperties",
        quick="oneApply",
        edits=[("        users.withBook(of: r.user) { $0.close(id, of: r.user, day: r.ref.day) }\n", "")],
    ),
    dict(
        name="cancel-by-non-owner",
        describe="cancel (and move) does not check the owner",
        file="Sources/SlotScheduler/Rules/Rules.swift",
        quick="I6_cancelFreesSlot",
        edits=[("        guard owner == user else { return .notOwner }\n", "")],
    ),
    dict(
        name="close-drops-silently",
        describe="closing hours displaces bookings but reports none",
        file="Sources/SlotScheduler/StateMachine/Decisions.swift",
        quick="I9_noSilentLoss",
        edits=[("        return .success(displaced)\n", "        return .success([])\n")],
    ),
    dict(
        name="horizon-off-by-one",
        describe="last-date horizon accepts one day beyond the last date",
        file="Sources/SlotScheduler/Rules/Rules.swift",
        quick="I3_noPastBooking_withinHorizon",
        edits=[("if let lastDay, ref.day > lastDay {", "if let lastDay, ref.day > lastDay &+ 1 {")],
    ),
    dict(
        name="check-then-insert",
        describe="Scheduler.reserve checks under one lock acquisition and inserts under another",
        file="Sources/SlotScheduler/Scheduler/Scheduler+Apply.swift",
        # One thread alone behaves as the real code: only the concurrency tests can catch it.
        filter="ConcurrencyTests",
        edits=[(SCHEDULER_APPLY_OLD, SCHEDULER_RESERVE_NEW)],
    ),
    dict(
        name="dst-gap-accepted",
        describe="a local hour skipped by DST gets a start instant instead of being refused",
        file="Sources/SlotScheduler/Time/ZoneClock.swift",
        # I4_respectsAvailability missed it on 2026-11-28 (the generated dates rarely reach a
        # skipped hour); the DST suite books one on purpose.
        quick="DSTTests",
        edits=[("        return first\n", "        return first ?? (local - Int64(offset(at: local - 86_400)))\n")],
    ),
    dict(
        name="request-id-unbounded",
        describe="a reservation's request id is not checked against the IdentifierRule (a 1 MB id is stored)",
        file="Sources/SlotScheduler/Rules/Rules+Public.swift",
        filter="ExtremeInput",
        quick="ExtremeInputTests",
        edits=[("if let id = request.requestID, !IdentifierRule.isValid(id.rawValue) {",
                "if let id = request.requestID, id.rawValue.isEmpty {")],
    ),
    dict(
        name="journal-ack-before-sync",
        describe="the journal store acknowledges after write(2), without fdatasync",
        file="Sources/SlotSchedulerJournal/Store/JournalStore+GroupCommit.swift",
        filter="JournalTests",
        # Not FailedWriteTests: with this mutant its aLaterSyncDoesNotAcknowledgeOverAFailedEarlierOne
        # waits out its 600 s patience for a sync that never comes (caught, after ten minutes).
        quick="PowerLossTests",
        edits=[("                    try file.sync(metadata: false)\n", "")],
    ),
    dict(
        name="journal-no-checksum",
        describe="journal recovery does not check record checksums",
        file="Sources/SlotSchedulerJournal/Format/RecordFormat.swift",
        filter="JournalTests",
        quick="CorruptionTests",
        edits=[("guard CRC32C.update(CRC32C.checksum(bytes[offset..<offset + 4]), payload) == crc else {",
                "guard crc == crc || CRC32C.update(CRC32C.checksum(bytes[offset..<offset + 4]), payload) == crc else {")],
    ),
    dict(
        name="journal-zero-frame-is-lost-write",
        describe="journal recovery takes a record whose frame alone reads zero, its payload still there, for a write lost in a power cut: the acknowledged records after it are cut",
        file="Sources/SlotSchedulerJournal/Recovery/Recovery.swift",
        filter="JournalTests",
        quick="PreallocationTests",
        edits=[("        let end = min(next, (offset / sectorSize + 1) * sectorSize, bytes.count)\n",
                "        let end = min(offset + RecordFormat.frameSize, bytes.count)\n")],
    ),
    dict(
        name="ocpp-repeated-key-kept",
        describe="an OCPP frame whose payload names a member twice is read keeping the first value, where the charge point's reader may keep the last",
        file="Sources/SlotSchedulerOCPP/Messages/OCPPFrame.swift",
        filter="OCPPTests",
        quick="FrameTests",
        edits=[("            frame = try JSONValue(parsing: bytes, repeatedKeys: .refuse)\n",
                "            frame = try JSONValue(parsing: bytes, repeatedKeys: .keepFirst)\n")],
    ),
    dict(
        name="output-replaces-any-file",
        describe="an output (report, history, page, scenario) replaces whatever regular file is at its path, though schedule-sim did not write it",
        file="Sources/SlotSimulation/Output/OutputFile.swift",
        filter="OutputFiles",
        edits=[("        guard kind.recognizes(read.bytes, whole: read.whole) else {\n",
                "        guard kind.recognizes(read.bytes, whole: read.whole) || !read.bytes.isEmpty else {\n")],
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
        file="Sources/SlotScheduler/Recovery/SlotBook+Restore.swift",
        filter="RestoreLayout",
        edits=[("        idPrefix = epoch << Self.epochShift | shard << Self.shardShift\n",
                "        idPrefix = shard << Self.shardShift\n")],
    ),
    dict(
        name="restore-forgets-moved-requests",
        describe="a ledger restored from a snapshot remembers a moved booking's request id with the slot it holds now, not the one it asked for: its repeat is refused as conflictingRequestID",
        file="Sources/SlotScheduler/Recovery/Replay.swift",
        filter="MovedRequestTests|LifecycleProperties|RetentionProperties",
        quick="MovedRequestTests",
        edits=[("        for (i, memo) in snapshot.movedRequests.enumerated() {\n", "        for (i, memo) in snapshot.movedRequests.prefix(0).enumerated() {\n")],
    ),
    dict(
        name="journal-snapshot-drops-moved-requests",
        describe="the journal store's snapshot leaves out the slots moved bookings' reservations asked for: after a checkpoint and a reopen, a repeat of such a reservation is refused",
        file="Sources/SlotSchedulerJournal/Store/JournalStore+Checkpoint.swift",
        filter="JournalTests",
        quick="LifecycleStoreTests",
        edits=[("            snapshot.movedRequests.map {\n", "            snapshot.movedRequests.prefix(0).map {\n")],
    ),
    dict(
        name="release-remembers-reschedule-ids",
        describe="a reschedule request id whose move went to a released date stays in memory and in snapshots after the release",
        file="Sources/SlotScheduler/Ledger/Ledger+Retention.swift",
        filter="RetentionProperties|RetentionTests",
        quick="RetentionTests",
        edits=[("        users.forgetMoves(before: cutoff.dayNumber)\n", "")],
    ),
    dict(
        name="release-snapshot-without-last-ids",
        describe="a ledger's snapshot after a release omits the last ids, so a restore gives released ids again",
        file="Sources/SlotScheduler/Recovery/Replay.swift",
        filter="RetentionProperties|RetentionTests",
        quick="RetentionTests",
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
        file="Sources/SlotScheduler/Scheduler/Scheduler+Apply.swift",
        filter="AnySocketTests|LifecycleThreadsTests",
        quick="AnySocketTests",
        edits=[(SCHEDULER_APPLY_OLD, ANY_SOCKET_NEW)],
    ),
    dict(
        name="any-socket-ignores-hours",
        describe="any-socket choice skips the opening-hours check (picks a closed socket, refused instead of the next free one)",
        file="Sources/SlotScheduler/StateMachine/Decisions+AnySocket.swift",
        filter="AnySocketTests|LifecycleProperties|LifecycleThreadsTests",
        quick="AnySocketTests",
        edits=[("            return word.isOpen(ref.hour) && slots.takenReason(ref, word: word, now: now) == nil\n",
                "            return slots.takenReason(ref, word: word, now: now) == nil\n")],
    ),
    dict(
        name="reschedule-counts-twice",
        describe="a reschedule counts the booking being moved against the user's limit as well as its new slot",
        file="Sources/SlotScheduler/StateMachine/Decisions+Reschedule.swift",
        filter="RescheduleTests|LifecycleProperties",
        quick="RescheduleTests",
        edits=[("if users.upcomingCount(u, at: now, reaching: limit) &- 1 >= limit {",
                "if users.upcomingCount(u, at: now, reaching: limit) >= limit {")],
    ),
    dict(
        name="reschedule-frees-before-take",
        describe="a reschedule frees the old slot before checking the new one (a refused move leaves the booking's slot free)",
        file="Sources/SlotScheduler/StateMachine/Decisions+Reschedule.swift",
        filter="RescheduleTests|LifecycleProperties|LifecycleThreadsTests",
        quick="RescheduleTests",
        edits=[("        let reminder: Int64? = booking.reminder < 0 ? nil : Int64(booking.reminder)\n",
                "        let reminder: Int64? = booking.reminder < 0 ? nil : Int64(booking.reminder)\n"
                "        slots.occupy(booking.ref, block: slots.pageIndex(booking.ref.day), record: nil)\n")],
    ),
    dict(
        name="reschedule-race",
        describe="Scheduler.reschedule decides the move under one lock acquisition and moves under another (two moves into one slot)",
        file="Sources/SlotScheduler/Scheduler/Scheduler+Apply.swift",
        filter="RescheduleConcurrencyTests|LifecycleThreadsTests",
        quick="RescheduleConcurrencyTests",
        edits=[(SCHEDULER_APPLY_OLD, RESCHEDULE_NEW)],
    ),
    dict(
        name="confirm-after-expiry",
        describe="a confirm is accepted after its hold expired (while no one else has taken the slot)",
        file="Sources/SlotScheduler/StateMachine/Decisions+Holds.swift",
        filter="HoldProperties|HoldTests|LifecycleThreadsTests",
        quick="HoldTests",
        edits=[("        guard slots.isCurrent(hold: h), Hold.isLive(expiresAt: hold.expiresAt, at: now) else {\n",
                "        guard slots.isCurrent(hold: h) else {\n")],
    ),
    dict(
        name="hold-not-flagged",
        describe="a hold does not set its socket-day's held flag: its taken hour reads as a booking's (slotTaken, not slotHeld; taken after it expired)",
        file="Sources/SlotScheduler/Storage/SlotBook+Holds.swift",
        filter="HoldProperties|HoldTests|LifecycleThreadsTests",
        quick="HoldTests",
        edits=[("        words[w].markHeld()\n", "")],
    ),
    dict(
        name="release-keeps-hold-entries",
        describe="a release forgets the keys of the released days' holds but leaves an unconfirmed hold's entry in its user's list (it counts again for a clock moved back, and stays in memory)",
        file="Sources/SlotScheduler/Storage/SlotBook+Retention.swift",
        filter="HoldProperties|RetentionHoldTests",
        quick="RetentionHoldTests",
        edits=[("            if hold.state == .held { entries.append(", "            if hold.state == .held, h < 0 { entries.append(")],
    ),
    dict(
        name="reminder-move-unindexed",
        describe="a reschedule moves a booking with a reminder to another hour without indexing its reminder there: remindersDue no longer finds it",
        file="Sources/SlotScheduler/StateMachine/Decisions+Reschedule.swift",
        filter="LifecycleProperties|ReminderTests",
        quick="I14_rescheduleNeverHalfDone",
        edits=[("        slots.indexReminder(of: record, previousStart: old.start)\n", "")],
    ),
    dict(
        name="reminder-cancelled-still-due",
        describe="remindersDue still lists the reminder of a cancelled or displaced booking (the schedule-sim reminder check, I10, must catch it)",
        file="Sources/SlotScheduler/Storage/SlotBook+Reminders.swift",
        filter="ReminderStepTests",
        edits=[("        guard !isReleased(record: record), records[record].status == .active,\n", "        guard !isReleased(record: record),\n")],
    ),
    dict(
        name="reminder-window-first-hour",
        describe="remindersDue walks only the first hour of a window shorter than the hours indexed, missing the reminders of its later hours",
        file="Sources/SlotScheduler/Storage/SlotBook+Reminders.swift",
        filter="ReminderProperties|InvariantProperties|ReminderTests",
        edits=[("            for hour in first...last {", "            for hour in first...first {")],
    ),
    dict(
        name="reminder-prune-drops-live",
        describe="a release prunes the reminder index against the hour after each entry's, dropping every live reminder",
        file="Sources/SlotScheduler/Storage/SlotBook+Reminders.swift",
        filter="RetentionProperties|ReminderTests",
        edits=[("            let live = Set(bucket.filter { remindsInHour(Int($0), hour) }).sorted()\n", "            let live = Set(bucket.filter { remindsInHour(Int($0), hour + 1) }).sorted()\n")],
    ),
    dict(
        name="release-keeps-chunks-behind-front",
        describe="a release frees only the chunks of records in front of the first one still held: a booking far ahead keeps every record made after it in memory",
        file="Sources/SlotScheduler/Storage/SlotBook+Retention.swift",
        filter="RetentionFarAheadTests",
        edits=[("            records.free(chunkOf: chunk.lowerBound)\n", "")],
    ),
    dict(
        name="release-returns-released-holds-again",
        describe="a release hands the users' books the holds of earlier releases again (those a hold far ahead keeps stored): every release costs the holds released before it",
        file="Sources/SlotScheduler/Storage/SlotBook+Retention.swift",
        filter="RetentionFarAheadTests",
        quick="aReleaseReturnsOnlyWhatItTakes",
        edits=[("guard hold.ref.day < cutoff, hold.ref.day >= previous else { continue }", "guard hold.ref.day < cutoff else { continue }")],
    ),
    dict(
        name="zone-clock-per-catalog",
        describe="every catalog reads its zones from Foundation and tables 36,525 days again instead of sharing the process's clock (half the property tests' time)",
        file="Sources/SlotScheduler/Time/ZoneClock.swift",
        filter="ExtremeZoneTests",
        edits=[("            if let clock = built[identifier] { return clock }\n", "")],
    ),
    dict(
        name="released-hold-unknown",
        describe="a confirm or release of a hold on a released date looks for the hold instead of answering released (unknownHold, or a released booking read back)",
        file="Sources/SlotScheduler/StateMachine/Decisions+Holds.swift",
        filter="HoldProperties|RetentionHoldTests",
        quick="RetentionHoldTests",
        edits=[("        if ref.day < slots.releasedBefore {\n", "        if ref.day < slots.releasedBefore, ref.day < 0 {\n")],
    ),
    dict(
        name="hold-not-counted",
        describe="a hold's entry in its user's list never counts as upcoming: live holds count neither against the limit nor against maxHoldsPerUser",
        file="Sources/SlotScheduler/Storage/UserBook+Holds.swift",
        filter="HoldProperties|HoldTests|LifecycleThreadsTests",
        quick="HoldTests",
        edits=[("        expiresAt.saturatingSubtracting(Booking.durationSeconds)\n",
                "        expiresAt.saturatingSubtracting(Booking.durationSeconds) &- 86_400_000\n")],
    ),
    dict(
        name="model-check-in-window-late",
        describe="the reference model's check-in window closes a second after the grace: the model (and the threads-mode checks that read its rules) disagrees with the library, which the properties and the simulator's checks must notice",
        file="Sources/SlotSimulation/Model/ModelRules.swift",
        filter="CheckInProperties|CheckInSimulationTests",
        quick="CheckInProperties",
        edits=[("(start - policy.earlyCheckInSeconds)..<(start + policy.noShowGraceSeconds)", "(start - policy.earlyCheckInSeconds)..<(start + policy.noShowGraceSeconds + 1)")],
    ),
    dict(
        name="checkin-after-grace",
        describe="a check-in is accepted after its grace (a no-show checked in late, counted as fulfilled)",
        file="Sources/SlotScheduler/StateMachine/Decisions+CheckIn.swift",
        filter="CheckInProperties|CheckInTests|CheckInSimulationTests",
        quick="CheckInTests",
        edits=[("        if Booking.isNoShow(start: start, at: now, grace: policy.noShowGraceSeconds) { return .checkInClosed }\n",
                "")],
    ),
    dict(
        name="checkout-without-checkin",
        describe="a check-out is accepted of a booking never checked in (a ride that never started ends)",
        file="Sources/SlotScheduler/StateMachine/Decisions+CheckOut.swift",
        filter="CheckOutTests|CheckInProperties|SharedVehicles",
        quick="CheckOutTests",
        edits=[("        guard slots.checkIns[Int32(truncatingIfNeeded: record)] != nil else { return .notCheckedIn }\n",
                "")],
    ),
    dict(
        name="checkout-keeps-counting",
        describe="a checked-out booking keeps its user's entry: the ended ride still counts against the limit",
        file="Sources/SlotScheduler/StateMachine/Decisions.swift",
        filter="CheckOutTests|CheckInProperties|SharedVehicles",
        quick="CheckOutTests",
        edits=[("        users.withBook(of: r.user) { $0.close(id, of: r.user, day: r.ref.day) }\n",
                "        if status != .fulfilled { users.withBook(of: r.user) { $0.close(id, of: r.user, day: r.ref.day) } }\n")],
    ),
    dict(
        name="no-show-limit-ignored",
        describe="the no-show limit is never applied: a user with recent no-shows keeps their own limit",
        file="Sources/SlotScheduler/StateMachine/Decisions+CheckIn.swift",
        filter="CheckInProperties|CheckInTests|CheckInSimulationTests",
        quick="CheckInTests",
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
        file="Sources/SlotScheduler/Storage/UserBook+CheckIn.swift",
        filter="CheckInProperties|CheckInTests|CheckInSimulationTests",
        quick="CheckInSimulationTests",
        edits=[("            entry.flags & (Self.holdFlag | Self.checkedInFlag) == 0 && entry.start >= since\n",
                "            entry.flags & Self.holdFlag == 0 && entry.start >= since\n")],
    ),
    dict(
        name="ocpp-cancel-never-sent",
        describe="a booking cancelled or moved within its lead keeps its reservation at the charger (no CancelReservation)",
        file="Sources/SlotSchedulerOCPP/Bridge/ChargerBridge.swift",
        filter="OCPPTests",
        quick="BridgeTests",
        edits=[("            } else if held.start.offset(by: grace) > now {\n",
                "            } else if held.start.offset(by: grace) < now {\n")],
    ),
    dict(
        name="ocpp-fault-displaces-nothing",
        describe="a Faulted connector's hours are closed only when no booking is there (.refuse): drivers are sent to a broken charger",
        file="Sources/SlotSchedulerOCPP/Bridge/ChargerBridge.swift",
        filter="OCPPTests",
        quick="BridgeTests",
        edits=[("            guard let displaced = try? await service.changeAvailability(closure.change, onBookings: .displace, at: now)\n",
                "            guard let displaced = try? await service.changeAvailability(closure.change, onBookings: .refuse, at: now)\n")],
    ),
    dict(
        name="simulated-fault-refuses",
        describe="the simulator closes a faulted charger's hours with .refuse: a fault with bookings there closes nothing",
        file="Sources/SlotSimulation/Scenario/Scenario+StationEvents.swift",
        filter="StationFaultSimulationTests",
        edits=[("        return closures.map { .init(atOperation: op, change: $0.change, rule: .displace) }\n",
                "        return closures.map { .init(atOperation: op, change: $0.change, rule: .refuse) }\n")],
    ),
    dict(
        name="ocpp-bridge-reentrant",
        describe="the bridge lets a second call in while one awaits the store: a tick extending a fault undoes the station's Available",
        file="Sources/SlotSchedulerOCPP/Bridge/ChargerBridge.swift",
        filter="OCPPTests",
        quick="BridgeInterleavingTests",
        edits=[("        guard busy else {\n            busy = true\n            return\n        }\n",
                "        guard busy else {\n            return\n        }\n")],
    ),
    dict(
        name="ocpp-lead-ignored",
        describe="ReserveNow is sent a day ahead instead of within the reserve lead (OCPP reservations start when sent)",
        file="Sources/SlotSchedulerOCPP/Bridge/ChargerBridge.swift",
        filter="OCPPTests",
        quick="BridgeTests",
        edits=[("..<now.offset(by: timing.reserveLeadSeconds).offset(by: 1)\n",
                "..<now.offset(by: timing.reserveLeadSeconds + 86_400).offset(by: 1)\n")],
    ),
    dict(
        name="pg-migration-under-statement-timeout",
        describe="opening a PostgreSQL store migrates under the application's statement timeout: a short one cancels the migration (57014) and the store does not open",
        file="Sources/SlotSchedulerPostgres/PostgresBookingService+Setup.swift",
        filter="SessionSettingsTests",
        needs="Postgres",
        edits=[("        try await connection.allRows(\"SET LOCAL statement_timeout = 0\", logger: logger)\n", "")],
    ),
    dict(
        name="pg-check-in-window-from-start",
        describe="the PostgreSQL store's check-in opens at the start, not earlyCheckInSeconds before it (the stores' conformance with the model catches it)",
        # Migration 14 redefined slot_check_in (check-out and access codes): its text is the live one.
        file="Sources/SlotSchedulerPostgres/Migrations/v14.sql",
        filter="PostgresTests",
        quick="ConformanceTests",
        needs="Postgres",
        edits=[("    ELSIF p_now < r.start_at - d.early_check_in THEN\n",
                "    ELSIF p_now < r.start_at THEN\n")],
    ),
    dict(
        name="scheduler-reminders-by-shard",
        describe="the Scheduler's reminders due come shard by shard, not by time then booking id (the stores' conformance with the model catches it)",
        file="Sources/SlotScheduler/Scheduler/Scheduler+Queries.swift",
        filter="ConformanceTests",
        edits=[("        return allShards { $0.remindersDue(in: window, catalog: catalog) }\n"
                "            .sorted { ($0.fireAt, $0.booking) < ($1.fireAt, $1.booking) }\n",
                "        return allShards { $0.remindersDue(in: window, catalog: catalog) }\n")],
    ),
    dict(
        name="pg-page-in-catalog-order",
        describe="the PostgreSQL store's pages of a user's bookings order those of one start by the catalog's socket order, not by slot as every other store lists them",
        file="Sources/SlotSchedulerPostgres/PostgresBookingService.swift",
        filter="PostgresTests",
        quick="PageTests",
        needs="Postgres",
        edits=[("ORDER BY start_at \\(unescaped: order), (\\(rank)::integer[])[socket_idx + 1] \\(unescaped: order),\n",
                "ORDER BY start_at \\(unescaped: order), socket_idx \\(unescaped: order),\n")],
    ),
    dict(
        name="pg-migrations-forget-grants",
        describe="applying migrations does not grant the recorded runtime roles again: after an upgrade that creates a table (holds, migration 3), the service's role cannot hold a slot",
        file="Sources/SlotSchedulerPostgres/PostgresBookingService+Setup.swift",
        filter="PostgresTests",
        quick="SchemaStepsTests",
        needs="Postgres",
        edits=[("        if !pending.isEmpty { try await grantAgain(connection, schema: schema, logger: logger) }\n", "")],
    ),
    dict(
        name="pg-application-client-ignored",
        describe="a PostgreSQL store given the application's PostgresClient opens a pool of its own from its configuration instead",
        file="Sources/SlotSchedulerPostgres/PostgresBookingService.swift",
        filter="PostgresTests",
        quick="ApplicationClientTests",
        needs="Postgres",
        edits=[("                WritablePool(borrowing: client, configuration, logger: logger, counters: counters)\n",
                "                try await WritablePool(configuration, logger: logger, counters: counters)\n")],
    ),
    dict(
        name="catalog-change-displaces-history",
        describe="a catalog change displaces every active booking on a retired socket, past ones too: history is rewritten",
        file="Sources/SlotScheduler/StateMachine/CatalogRevision.swift",
        filter="SchedulerTests",
        quick="CatalogChangeTests",
        edits=[("            $0.status == .active && $0.start >= now && !isOpen($0.slot, in: next.catalog, overridden: overridden)\n",
                "            $0.status == .active && !isOpen($0.slot, in: next.catalog, overridden: overridden)\n")],
    ),
    dict(
        name="catalog-change-renumbers-sockets",
        describe="a catalog change numbers sockets afresh instead of keeping their indices: bookings and cells name other sockets",
        file="Sources/SlotScheduler/Rules/Catalog+Change.swift",
        filter="SchedulerTests",
        quick="CatalogChangeTests",
        edits=[("                if let f = known.removeValue(forKey: socket.id) {\n",
                "                if let f = known.removeValue(forKey: socket.id), false {\n")],
    ),
    dict(
        name="journal-forgets-the-changed-catalog",
        describe="the journal store's snapshot does not keep a changed catalog: reopened with the first one, it replays bookings on sockets that catalog lacks",
        file="Sources/SlotSchedulerJournal/Store/JournalStore+Checkpoint.swift",
        filter="JournalTests",
        quick="CatalogChangeStoreTests",
        edits=[("        if let catalog, catalog.revision > 0 {\n",
                "        if let catalog, catalog.revision > 1_000_000 {\n")],
    ),
    dict(
        name="pg-catalog-guard-off",
        describe="migration 11's guard lets a booking decided under the old catalog onto a retired socket (a transaction that waited for the change's lock)",
        file="Sources/SlotSchedulerPostgres/Migrations/v11.sql",
        filter="PostgresTests",
        quick="CatalogChangeTests",
        needs="Postgres",
        edits=[("    IF NOT FOUND OR v.retired OR ((v.regular_mask >> NEW.hour) & 1 = 0 AND NOT EXISTS (\n",
                "    IF false AND ((v.regular_mask >> NEW.hour) & 1 = 0 AND NOT EXISTS (\n")],
    ),
    dict(
        name="pg-stale-catalog-kept",
        describe="an instance that meets a newer deployment version reloads the catalog but finishes the command it resolved under the old one",
        file="Sources/SlotSchedulerPostgres/PostgresBookingService.swift",
        filter="PostgresTests",
        quick="CatalogChangeTests",
        needs="Postgres",
        edits=[("        let changed = catalog.revision != current.revision\n",
                "        let changed = catalog.revision != current.revision && false\n")],
    ),
    dict(
        name="any-socket-candidates-contiguous",
        describe="an any-socket booking counts a station's sockets from its first one's flat index: after a catalog change added a socket, candidates name other sockets",
        file="Sources/SlotScheduler/StateMachine/Decisions+AnySocket.swift",
        filter="JournalTests",
        quick="ConformanceTests",
        edits=[("            let socket = catalog.socket(ofStation: firstRef.station, at: $0)\n",
                "            let socket = firstRef.socket - Int32(first) + Int32($0)\n")],
    ),
    dict(
        name="pg-policy-columns-not-written",
        describe="updatePolicy writes the policy's JSON but not the check-in columns the SQL functions read: the old window stays in force",
        file="Sources/SlotSchedulerPostgres/PostgresBookingService.swift",
        filter="PostgresTests",
        quick="CheckInTests",
        needs="Postgres",
        edits=[("                if self.writesPolicyColumns {\n", "                if self.writesPolicyColumns && false {\n")],
    ),
    dict(
        name="rules-check-taken-unjudged",
        describe="schedule-sim's --check rules drops a reservation refused as taken from its slot's history: an API that keeps a cancelled booking's slot passes",
        file="Sources/SlotSimulation/Target/RulesCheck.swift",
        filter="SimulationTests",
        quick="RulesCheckTests",
        edits=[("        case .slotTaken, .slotHeld, .noMatchingSocketFree: op.kind = .refusedTaken\n", "        case .slotTaken, .slotHeld, .noMatchingSocketFree: return false\n")],
    ),
    dict(
        name="rules-check-hold-never-lapses",
        describe="schedule-sim's --check rules keeps a hold on its slot past its expiry: a correct API that books a slot whose hold expired is flagged",
        file="Sources/SlotSimulation/Target/RulesCheck+Holds.swift",
        filter="SimulationTests",
        quick="TargetHoldCheckTests",
        edits=[("            add(expiry, call: k, slot: slot, user: user)\n", "")],
    ),
    dict(
        name="rules-check-checkin-window-unjudged",
        describe="schedule-sim's --check rules does not judge check-ins against their window: an API that checks in a booking a day early passes",
        file="Sources/SlotSimulation/Target/RulesCheck.swift",
        filter="SimulationTests",
        quick="TargetCheckInWindowTests",
        edits=[("            case \"checkIn\": checkIn(k, call)\n", "")],
    ),
    dict(
        name="session-checkout-unjudged",
        describe="the one session specification never judges a check-out: a store that ends a ride that never started passes both the threads-mode and the --check rules checks",
        file="Sources/SlotSimulation/Checking/SessionSpecification.swift",
        filter="SimulationTests",
        quick="SessionSpecificationTests",
        edits=[("            return state.checkedIn == .no ? .checkedOutWithoutCheckIn : nil\n", "            return nil\n")],
    ),
    dict(
        name="access-code-ignored",
        describe="any code opens a socket: a check-in with a wrong access code starts the ride (anyone who learns a booking's id starts it at any vehicle)",
        file="Sources/SlotScheduler/StateMachine/Decisions+CheckOut.swift",
        filter="CheckOutTests|SharedVehicles",
        quick="SharedVehicles",
        edits=[("        guard let expected else { return true }\n", "        guard let expected, false else { return true }\n")],
    ),
    dict(
        name="threads-access-code-unjudged",
        describe="threads mode does not ask whether a check-in answered as made presented its socket's code: a store that lets any code open a socket passes",
        file="Sources/SlotSimulation/Checking/ThreadsAnalysis.swift",
        filter="SimulationTests",
        quick="SharedVehicles",
        edits=[("            checkAccessCodes(made: made)\n", "")],
    ),
    dict(
        name="rules-check-access-code-unjudged",
        describe="schedule-sim's --check rules lets a check-in with a wrong code be answered as made: an API that ignores access codes passes",
        file="Sources/SlotSimulation/Target/RulesCheck+CheckIn.swift",
        filter="SimulationTests",
        quick="TargetCheckInWindowTests",
        edits=[("            if done.kind == .ok {\n                result.findings.append(\n                    finding(\n                        \"access codes\"",
                "            if done.kind == .ok && false {\n                result.findings.append(\n                    finding(\n                        \"access codes\"")],
    ),
    dict(
        name="session-cutoff-unjudged",
        describe="the one session specification never judges a cancel or a move against its cutoff: a store or API that cancels minutes before the hour passes both the threads-mode and the --check rules checks",
        file="Sources/SlotSimulation/Checking/SessionSpecification.swift",
        filter="SimulationTests",
        quick="SessionSpecificationTests",
        edits=[("            return judgeCutoff(state, op)\n", "            return nil\n")],
    ),
    dict(
        name="safety-key-reuse-unchecked",
        describe="schedule-sim's safety checks let a key sent again with another slot be answered with the key's first booking: an API that claims a booking the request did not get passes",
        file="Sources/SlotSimulation/Target/SafetyCheck.swift",
        filter="SimulationTests",
        quick="TargetCheckTests",
        edits=[("            guard same ? event.kind == .fail : event.kind == .ok else { continue }\n",
                "            guard same && event.kind == .fail else { continue }\n")],
    ),
    dict(
        name="rules-check-hold-cap-unjudged",
        describe="the user specification lets a user take one hold more than maxHoldsPerUser: an API (--check rules) or a store (threads mode) that lets one user hold many slots at once passes",
        file="Sources/SlotSimulation/Checking/UserSpecification.swift",
        filter="SimulationTests",
        quick="TargetHoldCheckTests|LifecycleThreadsTests",
        edits=[("holdLimit.map { state.liveHolds(at: op.now) < $0 }",
                "holdLimit.map { state.liveHolds(at: op.now) <= $0 }")],
    ),
    dict(
        name="threads-holds-unpartitioned",
        describe="threads mode leaves holds, confirms and releases out of the linearizability partitions: a store whose holds outlive their expiry, or that lets one user hold more than maxHoldsPerUser, passes I15-I17",
        file="Sources/SlotSimulation/Checking/ThreadsAnalysis+Linearizability.swift",
        filter="LifecycleThreadsTests",
        quick="LifecycleThreadsTests",
        edits=[("            return holdOperation(i, made: made)\n", "            return nil\n")],
    ),
    dict(
        name="slot-spec-expiry-ignored",
        describe="the slot specification lets a hold keep its slot after its expiry: a store that gives an expired hold's slot to someone else, as the rules say, fails threads mode",
        file="Sources/SlotSimulation/Checking/SlotSpecification.swift",
        filter="LifecycleThreadsTests",
        quick="LifecycleThreadsTests",
        edits=[("        func taken(at now: Int64) -> Bool { holder != 0 && now < expiry }\n",
                "        func taken(at now: Int64) -> Bool { holder != 0 }\n")],
    ),
    dict(
        name="threads-double-booking-unnamed",
        describe="threads mode names no rule for a slot whose accepted calls alone no order explains: a store that double-books passes I1 (the history is only not linearizable)",
        file="Sources/SlotSimulation/Checking/ThreadsAnalysis+Attribution.swift",
        filter="ThreadsRuns",
        quick="ThreadsRuns",
        edits=[("        if bySlot { return (.I1, \"one booking at a time\") }\n", "        if bySlot { return nil }\n")],
    ),
    dict(
        name="threads-limit-unnamed",
        describe="threads mode names no rule for a user whose accepted calls no order keeps within the limit: a store that checks the limit only in the UI passes I2",
        file="Sources/SlotSimulation/Checking/ThreadsAnalysis+Attribution.swift",
        filter="ThreadsRuns",
        quick="ThreadsRuns",
        edits=[("        return orderable(unlimited, limits: false) ? (.I2, \"their limit\") : nil\n",
                "        return nil\n")],
    ),
    dict(
        name="safety-foreign-unchecked",
        describe="schedule-sim's safety checks let one user act on another's booking: an API that cancels or shows anyone's booking to anyone passes",
        file="Sources/SlotSimulation/Target/SafetyCheck.swift",
        filter="SimulationTests",
        quick="TargetOwnershipCheckTests",
        edits=[("        findings += actingAsAnother(foreign, owners: owners, completions, evidence)\n", "")],
    ),
    dict(
        name="safety-kept-at-any-slot",
        describe="schedule-sim's safety checks accept an acknowledged booking listed at another slot: an API that stores a booking an hour off passes",
        file="Sources/SlotSimulation/Target/SafetyCheck+Owners.swift",
        filter="SimulationTests",
        quick="TargetOwnershipCheckTests",
        edits=[("            } else if let allowed = places[booking.id], !allowed.isEmpty, !allowed.contains(place(booking.slot)) {\n", "            } else if let allowed = places[booking.id], !allowed.isEmpty, !allowed.contains(place(booking.slot)), false {\n")],
    ),
    dict(
        name="json-repeated-key-last-wins",
        describe="JSONValue(parsing:) keeps a repeated key's last value where JSONDecoder keeps its first: the two readers disagree on a booking's id",
        file="Sources/SlotScheduler/WireFormat/JSONValue+Parsing.swift",
        quick="JSONParsingProperties",
        edits=[("            if members[name] == nil { members[name] = member }\n", "            members[name] = member\n")],
    ),
    dict(
        name="rules-check-time-rules-unjudged",
        describe="schedule-sim's --check rules never finds a slot refused by the time rules throughout its request: an API that books past hours passes",
        file="Sources/SlotSimulation/Target/RulesCheck.swift",
        filter="SimulationTests",
        quick="RulesCheckTests",
        edits=[("        guard let early = refusal(slot, at: moments.first), let late = refusal(slot, at: moments.last) else {\n", "        guard let early = refusal(slot, at: moments.first), let late = refusal(slot, at: moments.last), false else {\n")],
    ),
    dict(
        name="rules-check-move-keeps-its-slot",
        describe="schedule-sim's --check rules does not free the slot a booking was moved out of: an API that double-books the old slot after a move passes, and a correct one is flagged",
        file="Sources/SlotSimulation/Target/RulesCheck.swift",
        filter="SimulationTests",
        quick="TargetLifecycleCheckTests",
        edits=[("        bySlot[from, default: []].append(Entry(operation: leaving, call: k))\n", "")],
    ),
    dict(
        name="safety-reads-unchecked",
        describe="schedule-sim's safety checks ignore reads of one booking: an API that loses an acknowledged booking for a while and brings it back passes",
        file="Sources/SlotSimulation/Target/SafetyCheck.swift",
        filter="SimulationTests",
        quick="TargetLifecycleCheckTests",
        edits=[("        findings += readsRefused(made: made, cancels: cancels, invocations, completions, evidence)\n", "")],
    ),
    dict(
        name="pg-repeat-compared-with-moved-slot",
        describe="slot_take compares a repeated reservation's request id with the slot its booking was moved to, not the one it asked for: the repeat after a move is refused as conflictingRequestID",
        file="Sources/SlotSchedulerPostgres/Migrations/v13.sql",
        filter="PostgresTests",
        quick="ConformanceTests",
        needs="Postgres",
        edits=[("                IF coalesce(r.requested_socket_idx, r.socket_idx) = ANY (p_sockets)\n", "                IF r.socket_idx = ANY (p_sockets) AND r.requested_day IS NULL\n")],
    ),
    dict(
        name="pg-catalog-of-the-instance",
        describe="an instance started with another catalog file than the database's runs with its own stations: its socket indices name other sockets' rows",
        file="Sources/SlotSchedulerPostgres/PostgresBookingService.swift",
        filter="PostgresTests",
        quick="CatalogConflictTests",
        needs="Postgres",
        edits=[("            inForce = stored ?? catalog\n", "            inForce = catalog\n")],
    ),
    dict(
        name="relocation-keeps-the-place",
        describe="a relocation puts the station list in service again unchanged: a vehicle left elsewhere stays where it was",
        file="Sources/SlotScheduler/Rules/Catalog+Relocation.swift",
        filter="RelocationTests|RelocationStoreTests|ConformanceTests|SharedVehiclesSimulationTests",
        edits=[("        moved[index].coordinate = place\n", "")],
    ),
    dict(
        name="check-out-moves-before-checking-out",
        describe="a check-out that leaves its resource elsewhere moves the station first: a check-out refused (not checked in) still moves the vehicle",
        file="Sources/SlotScheduler/Scheduler/BookingService.swift",
        filter="RelocationStoreTests",
        edits=[("        let booking = try await checkOut(id, by: user, at: now)\n        _ = try await relocate(booking.slot.station, to: place, at: now)\n",
                "        if let held = try await self.booking(id) { _ = try await relocate(held.slot.station, to: place, at: now) }\n        let booking = try await checkOut(id, by: user, at: now)\n")],
    ),
    dict(
        name="relocating-scheduler-keeps-its-catalog",
        describe="threads mode's in-memory store answers a catalog change and keeps serving the old scheduler: a ride's check-out says the vehicle moved, and it did not",
        file="Sources/SlotSimulation/Run/RelocatingScheduler.swift",
        filter="SharedVehiclesSimulationTests",
        edits=[("        current = next\n", "        _ = next\n")],
    ),
    dict(
        name="threads-places-unchecked",
        describe="threads mode does not compare the store's places after the run with where the check-outs left the vehicles: a store that never moves one passes",
        file="Sources/SlotSimulation/Checking/ThreadsAnalysis.swift",
        filter="SharedVehiclesSimulationTests",
        edits=[("        if let finalCatalog { checkPlaces(in: finalCatalog) }\n", "")],
    ),
    dict(
        name="last-move-any-ride",
        describe="I21 accepts a station at the place of any ride that ended there, even one that returned before the last accepted ride began: a store or API that keeps an earlier place passes",
        file="Sources/SlotSimulation/Checking/LastMove.swift",
        filter="TargetCheckTests|SharedVehiclesSimulationTests",
        edits=[("        return moves.filter { $0.end >= lastStart }.map(\\.place)\n", "        return moves.map(\\.place)\n")],
    ),
    dict(
        name="adapter-keeps-emptied-object",
        describe="a check-out that leaves its vehicle in place still sends the emptied place object (`\"leftAt\": {}`), which an API reads as a place without coordinates",
        file="Sources/SlotSimulation/Target/AdapterRequest.swift",
        filter="TargetCheckTests",
        edits=[("                    if case .object(let members) = member, !members.isEmpty, filled == .object([:]) { return nil }\n", "")],
    ),
    dict(
        name="deterministic-ride-ends-in-place",
        describe="deterministic mode checks a moving check-out out in the ledger and the model and moves neither: the scenario's vehicles never move",
        file="Sources/SlotSimulation/Run/DeterministicRun+Lifecycle.swift",
        filter="SharedVehiclesSimulationTests",
        edits=[("            if let place { relocate(ended.slot.station, to: place, at: at) }\n", "")],
    ),
    dict(
        name="pg-relocate-from-instance-catalog",
        describe="a PostgreSQL instance builds a relocation from its own catalog, not the deployment's: a move made through another instance since is put back",
        file="Sources/SlotSchedulerPostgres/PostgresBookingService+Catalog.swift",
        filter="PostgresTests",
        quick="RelocationTests",
        needs="Postgres",
        edits=[("        do throws(Rejection) { change = try build(current) } catch { return (.failure(error), version) }\n",
                "        do throws(Rejection) { change = try build(self.rules.catalog) } catch { return (.failure(error), version) }\n")],
    ),
    dict(
        name="deadline-never-expires",
        describe="a store call's deadline timer wakes and never abandons the call: a call on a connection that never answers hangs its caller",
        file="Sources/SlotSchedulerPostgres/GuardedCalls.swift",
        filter="DeadlineTests",
        needs="Postgres",
        edits=[("                    if !Task.isCancelled, gate.finish(.failure(AbandonedCall.deadline(limit))) { work.cancel() }\n",
                "                    _ = limit\n")],
    ),
    dict(
        name="pg-rows-streamed",
        describe="the PostgreSQL store reads rows as a PostgresRowSequence: a connection that ends mid-result crashes the process (PostgresNIO 1.33.2; its test runs with SLOTSCHEDULER_ROW_STREAM_CUTS=1)",
        file="Sources/SlotSchedulerPostgres/AllRows.swift",
        # Missed on 2026-11-30 by `PostgresTests`: the suite that cuts connections runs on demand
        # only (its comment says why), so the mutant's run asks for it.
        filter="RowStreamCrashTests",
        env="SLOTSCHEDULER_ROW_STREAM_CUTS=1",
        needs="Postgres",
        # The bug is the crash: PostgresNIO's precondition, seen in the test log, is the catch.
        crash="How can we receive a body part, after a channelReadComplete",
        edits=[("        let result: EventLoopFuture<PostgresQueryResult> = self.query(query, logger: logger)\n"
                "        return try await result.get().rows\n",
                "        try await self.query(query, logger: logger).collect()\n")],
    ),
]


ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
RESULTS = os.path.join(ROOT, "Scripts", "mutants", "results.json")
README = os.path.join(ROOT, "Tests", "PropertyTests", "README.md")
BEGIN = "<!-- mutants:begin -->"
END = "<!-- mutants:end -->"
VERDICTS = ("caught", "missed", "crashed", "does not compile", "did not apply", "clean build failed", "not built")


def find(name):
    for m in MUTANTS:
        if m["name"] == name:
            return m
    sys.exit(f"unknown mutant {name!r}")


def fingerprint(m):
    text = json.dumps([m["file"], m["edits"]], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def mutated(m, text):
    """The text with every edit of `m` applied, or the reason it does not apply."""
    for old, new in m["edits"]:
        n = text.count(old)
        if n != 1:
            return None, f"expected its target text exactly once in {m['file']}, found {n}"
        if old == new:
            return None, "an edit changes nothing"
        text = text.replace(old, new)
    return text, None


def load_results(path=None):
    path = path or os.environ.get("MUTANTS_RESULTS") or RESULTS
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def describe_result(m, kind, r, runs):
    """One recorded result as the table shows it."""
    if not r:
        return "no recorded result"
    if r["verdict"] == "caught":
        text = "caught by " + r["detail"] if r["detail"] else "caught"
    elif r["verdict"] == "missed":
        text = "**missed**"
    else:
        text = r["verdict"] + (": " + r["detail"] if r["detail"] else "")
    current = m.get("quick") if kind == "quick" else m.get("filter", "PropertyTests")
    notes = []
    if r.get("seconds") is not None:
        notes.append(f"{r['seconds']} s")
    notes.append(f"run {runs.index(run_key(r)) + 1}")
    if r.get("filter") and r["filter"] != current:
        notes.append(f"filter then `{r['filter']}`")
    if r.get("fingerprint") is None:
        notes.append("mutant text not recorded")
    elif r["fingerprint"] != fingerprint(m):
        notes.append("**stale**: the mutant's text changed since")
    return f"{text} ({'; '.join(notes)})"


def run_key(r):
    return (r["started"], r["commit"], r["command"])


def table(results=None):
    """The mutation table: one row per mutant of MUTANTS, in order, with its last recorded
    result under its full filter and under its quick one."""
    results = load_results(RESULTS) if results is None else results
    runs = sorted({run_key(r) for m in MUTANTS for r in results.get(m["name"], {}).values()})
    lines = [
        f"{len(MUTANTS)} mutants (`python3 Scripts/mutants/mutants.py --list | wc -l`). Generated by",
        "`python3 Scripts/mutants/mutants.py --write-table` from the list and from",
        "`Scripts/mutants/results.json`, where every run of `Scripts/mutation-check.sh` records each",
        "mutant's last result under its full filter and under its quick one (the CI planting records",
        "into its build folder instead, and prints them). `mutants.py --check` (CI) fails if this",
        "table is not exactly what the script generates. A result whose mutant text has changed since",
        "is marked stale. The quick filter, where there is one, is what the CI planting runs.",
        "",
        "| mutant | bug | filter | result | quick filter | result, quick filter |",
        "|---|---|---|---|---|---|",
    ]
    for m in MUTANTS:
        r = results.get(m["name"], {})
        full = m.get("filter", "PropertyTests")
        quick = m.get("quick")
        lines.append(
            f"| `{m['name']}` | {cell(m['describe'])} | `{cell(full)}` | {cell(describe_result(m, 'full', r.get('full'), runs))} "
            + (f"| `{cell(quick)}` | {cell(describe_result(m, 'quick', r.get('quick'), runs))} |" if quick else "| | |"))
    lines.append("")
    lines.append("Runs:")
    lines.append("")
    for i, (started, commit, command) in enumerate(runs, 1):
        lines.append(f"{i}. {started}, commit {commit}: {command}")
    return "\n".join(lines) + "\n"


def readme_section(path=README):
    with open(path) as f:
        text = f.read()
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        return text, None
    a = text.index(BEGIN) + len(BEGIN)
    return text, text[a:text.index(END)].strip("\n") + "\n"


def write_table():
    text, section = readme_section()
    if section is None:
        sys.exit(f"{README}: expected one {BEGIN} before one {END}")
    a = text.index(BEGIN) + len(BEGIN)
    b = text.index(END)
    with open(README, "w") as f:
        f.write(text[:a] + "\n" + table() + text[b:])


def check():
    failures = []
    names = [m["name"] for m in MUTANTS]
    for name in sorted({n for n in names if names.count(n) > 1}):
        failures.append(f"{name}: defined {names.count(name)} times")
    texts = {}
    for m in MUTANTS:
        path = os.path.join(ROOT, m["file"])
        if path not in texts:
            try:
                with open(path) as f:
                    texts[path] = f.read()
            except OSError as error:
                texts[path] = None
                failures.append(f"{m['name']}: cannot read {m['file']}: {error.strerror}")
        if texts[path] is None:
            continue
        _, reason = mutated(m, texts[path])
        if reason:
            failures.append(f"{m['name']}: does not apply: {reason}")
    _, section = readme_section()
    if section is None:
        failures.append(f"{os.path.relpath(README, ROOT)}: no {BEGIN} ... {END} section")
    else:
        rows = [line.split("|")[1].strip().strip("`") for line in section.splitlines()
                if line.startswith("| `")]
        for name in sorted(set(names) - set(rows)):
            failures.append(f"{name}: missing from the table in {os.path.relpath(README, ROOT)}")
        for name in sorted(set(rows) - set(names)):
            failures.append(f"{name}: in the table in {os.path.relpath(README, ROOT)} but not a mutant")
        if len(rows) != len(names):
            failures.append(f"the table has {len(rows)} rows, mutants.py --list {len(names)}")
        if section != table():
            failures.append(
                f"the table in {os.path.relpath(README, ROOT)} is not what mutants.py --write-table generates "
                "(edited by hand, or results.json changed without it): run that and commit both")
    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        print(f"mutants.py --check: {len(failures)} problem(s)", file=sys.stderr)
        sys.exit(1)
    print(f"mutants.py --check: all {len(MUTANTS)} mutants apply (each target text found exactly once); "
          f"the table lists exactly these {len(MUTANTS)}")


def pick(k, count):
    """Mutants with a `known_gap` (no test catches them yet) are listed, checked and run by
    mutation-check.sh, but not planted by CI."""
    names = sorted(m["name"] for m in MUTANTS if not m.get("known_gap"))
    k = max(1, min(k, len(names)))
    windows = (len(names) + k - 1) // k
    w = count % windows
    return [names[(w * k + i) % len(names)] for i in range(k)], w, windows


def record(name, verdict, seconds, detail):
    """Stores one result as the mutant's last under its quick filter (when that is the filter
    run) or its full one."""
    m = find(name)
    if verdict not in VERDICTS:
        sys.exit(f"verdict must be one of {VERDICTS}")
    path = os.environ.get("MUTANTS_RESULTS") or RESULTS
    results = load_results(path)
    run_filter = os.environ.get("MUTANTS_RUN_FILTER") or m.get("filter", "PropertyTests")
    kind = "quick" if m.get("quick") and run_filter == m["quick"] else "full"
    results.setdefault(name, {})[kind] = dict(
        verdict=verdict, detail=detail, seconds=int(seconds) if seconds else None, filter=run_filter,
        fingerprint=fingerprint(m), commit=os.environ.get("MUTANTS_RUN_COMMIT", "unrecorded"),
        started=os.environ.get("MUTANTS_RUN_STARTED", "unrecorded"),
        command=os.environ.get("MUTANTS_RUN_COMMAND", "unrecorded"))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(results, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    os.replace(path + ".tmp", path)


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        for m in MUTANTS:
            print(m["name"])
        return
    if len(argv) == 2 and argv[1] == "--check":
        return check()
    if len(argv) == 2 and argv[1] == "--table":
        return print(table(), end="")
    if len(argv) == 2 and argv[1] == "--write-table":
        return write_table()
    if len(argv) == 4 and argv[1] == "--pick":
        names, w, windows = pick(int(argv[2]), int(argv[3]))
        print("\n".join(names))
        return
    if len(argv) == 6 and argv[1] == "--record":
        return record(*argv[2:])
    if len(argv) != 3:
        sys.exit(__doc__)
    option, m = argv[1], find(argv[2])
    if option == "--target":
        print(m["file"])
    elif option == "--describe":
        print(m["describe"])
    elif option == "--filter":
        print(m.get("filter", "PropertyTests"))
    elif option == "--quick":
        print(m.get("quick", m.get("filter", "PropertyTests")))
    elif option == "--crash":
        print(m.get("crash", ""))
    elif option == "--needs":
        print(m.get("needs", ""))
    elif option == "--env":
        print(m.get("env", ""))
    elif option == "--fingerprint":
        print(fingerprint(m))
    elif option == "--apply":
        with open(m["file"]) as f:
            text = f.read()
        text, reason = mutated(m, text)
        if reason:
            print(f"mutant {m['name']}: {reason}", file=sys.stderr)
            sys.exit(2)
        with open(m["file"], "w") as f:
            f.write(text)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
