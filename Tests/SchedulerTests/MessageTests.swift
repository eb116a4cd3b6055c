import SlotScheduler
import Testing

@Suite("Messages in English and Turkish")
struct MessageTests {
    /// A refusal for `reason` with every detail filled in.
    private static func sample(_ reason: Rejection.Reason) throws -> Rejection {
        let date = try LocalDate(parsing: "2018-06-10")
        return Rejection(
            reason, slot: Slot(station: "LON", socket: "1", date: date, hour: 10), booking: BookingID(42), user: 7,
            requestID: "req-1", value: "v", limit: 3, instant: Instant.utc(date, hour: 9), date: date)
    }

    /// Every reason has a non-empty message in both languages, and the two differ.
    @Test(arguments: Rejection.Reason.allCases)
    func everyReasonHasTwoMessages(reason: Rejection.Reason) throws {
        let rejection = try Self.sample(reason)
        let english = rejection.message(in: .english)
        let turkish = rejection.message(in: .turkish)
        #expect(!english.isEmpty)
        #expect(!turkish.isEmpty)
        #expect(english != turkish)
        #expect(!english.contains("?"))
        #expect(rejection.description == english)
    }

    /// An invalid value found by the library says what was expected in Turkish too, not in
    /// English inside a Turkish sentence.
    @Test func invalidValuesAreTranslated() throws {
        let found: [InvalidValue?] = [
            refused { try HourSet([24]) }, refused { try LocalDate(parsing: "2026-02-30") },
            refused { try LocalDate(parsing: "30.02.2026") },
            refused { try IdentifierRule.validate(" IST-1", field: "id") },
            refused { try Policy(maxUpcomingBookings: -1).validated() },
            refused { try Catalog([]).search(StationQuery(page: -1)) },
        ]
        #expect(found.allSatisfy { $0 != nil })
        for value in found.compactMap({ $0 }) {
            let turkish = try #require(value.expectedInTurkish, "\(value)")
            #expect(turkish != value.expected)
            #expect(value.message(in: .turkish).contains(turkish))
            #expect(!value.message(in: .turkish).contains(value.expected))
            #expect(value.message(in: .english).contains(value.expected))
        }
    }

    private func refused(_ body: () throws -> some Any) -> InvalidValue? {
        do { _ = try body() } catch { return error as? InvalidValue }
        return nil
    }

    /// English messages are distinct per reason, so a user can tell why.
    @Test func messagesAreDistinct() throws {
        for language in MessageLanguage.allCases {
            let messages = try Rejection.Reason.allCases.map { try Self.sample($0).message(in: language) }
            #expect(Set(messages).count == messages.count)
        }
    }

    /// Messages name the details that matter: the slot, the limit, the deadline, the request id.
    @Test func messagesCarryDetails() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let slot = Fixture.slot(day, 10)
        _ = try ledger.reserve(Fixture.request(slot, user: 1, id: "r-77"), at: now)
        let taken = try #require(refusal { try ledger.reserve(Fixture.request(slot, user: 2), at: now) })
        #expect(taken.message(in: .english) == "LON/1 2018-06-10 10:00 is already booked.")
        #expect(taken.message(in: .turkish) == "LON/1 2018-06-10 10:00 dolu; başka bir saat seçin.")
        for hour in 11..<13 { _ = try ledger.reserve(Fixture.request(Fixture.slot(day, hour), user: 1), at: now) }
        let limit = try #require(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 14), user: 1), at: now) })
        #expect(limit.message(in: .english).contains("3 upcoming bookings"))
        #expect(limit.message(in: .turkish).contains("3 güncel randevu"))
        let conflict = try #require(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 15), user: 1, id: "r-77"), at: now) })
        #expect(conflict.message(in: .english).contains("r-77"))
        #expect(conflict.message(in: .turkish).contains("r-77"))
        let past = try #require(
            refusal {
                try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 3), at: Instant.utc(day, hour: 20))
            })
        #expect(past.message(in: .english).contains("in the past"))
        #expect(past.message(in: .turkish).contains("geçmişte"))
    }

    /// Languages have their ISO codes as raw values.
    @Test func languageCodes() {
        #expect(MessageLanguage.allCases.map(\.rawValue) == ["en", "tr"])
    }
}
