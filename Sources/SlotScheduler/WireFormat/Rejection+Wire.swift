import Foundation

// The wire format of refusals and invalid values; see <doc:WireFormat>.

extension CodingUserInfoKey {
    /// Set to a ``MessageLanguage`` in an encoder's `userInfo` to write a ``Rejection``'s or an
    /// ``InvalidValue``'s `message` in that language (English when absent).
    public static let messageLanguage: CodingUserInfoKey = {
        // A constant, valid key: `init(rawValue:)` is failable only by its signature.
        guard let key = CodingUserInfoKey(rawValue: "SlotScheduler.messageLanguage") else {
            preconditionFailure("CodingUserInfoKey refused a constant key")
        }
        return key
    }()
}

extension Rejection {
    enum WireKeys: String, CodingKey {
        case reason, category, message, slot, booking, user, requestID, value, limit, instant, date, timeZone
        case utcOffsetSeconds
    }

    /// Decodes the wire form; `category` and `message` are derived and ignored when present.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        self.init(
            try c.decode(Reason.self, forKey: .reason), slot: try c.decodeIfPresent(Slot.self, forKey: .slot),
            booking: try c.decodeIfPresent(BookingID.self, forKey: .booking),
            user: try c.decodeIfPresent(UserID.self, forKey: .user),
            requestID: try c.decodeIfPresent(RequestID.self, forKey: .requestID),
            value: try c.decodeIfPresent(String.self, forKey: .value),
            limit: try c.decodeIfPresent(Int.self, forKey: .limit),
            instant: try c.decodeIfPresent(Instant.self, forKey: .instant),
            date: try c.decodeIfPresent(LocalDate.self, forKey: .date))
        timeZone = try c.decodeIfPresent(String.self, forKey: .timeZone)
        utcOffsetSeconds = try c.decodeIfPresent(Int.self, forKey: .utcOffsetSeconds)
    }

    /// Encodes the reason, its category, the message (in the encoder's
    /// `CodingUserInfoKey.messageLanguage`) and the values it refers to.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        let language = encoder.userInfo[.messageLanguage] as? MessageLanguage ?? .english
        try c.encode(reason, forKey: .reason)
        try c.encode(reason.category, forKey: .category)
        try c.encode(message(in: language), forKey: .message)
        try c.encodeIfPresent(slot, forKey: .slot)
        try c.encodeIfPresent(booking, forKey: .booking)
        try c.encodeIfPresent(user, forKey: .user)
        try c.encodeIfPresent(requestID, forKey: .requestID)
        try c.encodeIfPresent(value, forKey: .value)
        try c.encodeIfPresent(limit, forKey: .limit)
        try c.encodeIfPresent(instant, forKey: .instant)
        try c.encodeIfPresent(date, forKey: .date)
        try c.encodeIfPresent(timeZone, forKey: .timeZone)
        try c.encodeIfPresent(utcOffsetSeconds, forKey: .utcOffsetSeconds)
    }
}

extension InvalidValue: Codable {
    enum WireKeys: String, CodingKey { case field, value, expected, expectedInTurkish, message }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        self.init(
            field: try c.decode(String.self, forKey: .field), value: try c.decode(String.self, forKey: .value),
            expected: try c.decode(String.self, forKey: .expected),
            turkish: try c.decodeIfPresent(String.self, forKey: .expectedInTurkish))
    }

    /// Encodes `field`, `value` (shortened to the ``IdentifierRule`` bound), `expected` and
    /// `message` in the encoder's `CodingUserInfoKey.messageLanguage`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        let language = encoder.userInfo[.messageLanguage] as? MessageLanguage ?? .english
        try c.encode(field, forKey: .field)
        try c.encode(IdentifierRule.shortened(value), forKey: .value)
        try c.encode(expected, forKey: .expected)
        try c.encodeIfPresent(expectedInTurkish, forKey: .expectedInTurkish)
        try c.encode(message(in: language), forKey: .message)
    }

    /// A sentence naming the field, the value and what was expected, in `language`.
    public func message(in language: MessageLanguage) -> String {
        let value = IdentifierRule.shortened(value).debugDescription
        switch language {
        case .english: return "\(field): \(value) is not valid; expected \(expected)."
        case .turkish: return "\(field): \(value) geçerli değil; beklenen: \(expectedInTurkish ?? expected)."
        }
    }
}
