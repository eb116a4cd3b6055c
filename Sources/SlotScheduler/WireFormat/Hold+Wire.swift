// The wire format of holds; see <doc:WireFormat>.

extension Hold: Codable {
    enum WireKeys: String, CodingKey { case slot, user, start, createdAt, expiresAt, reminderSeconds }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        self.init(
            slot: try c.decode(Slot.self, forKey: .slot), user: try c.decode(UserID.self, forKey: .user),
            start: try c.decode(Instant.self, forKey: .start),
            createdAt: try c.decode(Instant.self, forKey: .createdAt),
            expiresAt: try c.decode(Instant.self, forKey: .expiresAt),
            reminderOffsetSeconds: try c.decodeIfPresent(Int64.self, forKey: .reminderSeconds))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(slot, forKey: .slot)
        try c.encode(user, forKey: .user)
        try c.encode(start, forKey: .start)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(expiresAt, forKey: .expiresAt)
        try c.encodeIfPresent(reminderOffsetSeconds, forKey: .reminderSeconds)
    }
}
