extension Rejection {
    /// `instant` as the station's clock shows it, with its zone: `2026-11-30 14:00 Europe/Istanbul
    /// (UTC+03:00)`; in UTC (`2026-11-30 11:00 UTC`) when the refusal carries no zone.
    func localTime(_ instant: Instant) -> String {
        let offset = utcOffsetSeconds ?? 0
        let local = Instant(secondsSinceEpoch: instant.secondsSinceEpoch.saturatingAdding(Int64(offset)))
        let text = local.description  // YYYY-MM-DDTHH:MM:SSZ
        let minutes = String(text.dropLast(4).map { $0 == "T" ? " " : $0 })
        guard let timeZone else { return "\(minutes) UTC" }
        let sign = offset < 0 ? "-" : "+"
        let hours = abs(offset) / 3_600
        let rest = abs(offset) / 60 % 60
        return "\(minutes) \(timeZone) (UTC\(sign)\(hours < 10 ? "0" : "")\(hours):\(rest < 10 ? "0" : "")\(rest))"
    }

    /// A sentence a person can read, saying what was refused and why.
    public func message(in language: MessageLanguage) -> String {
        let slot = self.slot.map(\.description) ?? "?"
        let value = self.value.map(IdentifierRule.shortened) ?? "?"
        let booking = self.booking.map(\.description) ?? value
        let instant = self.instant.map { localTime($0) } ?? "?"
        let limit = self.limit.map(String.init) ?? "?"
        let date = self.date.map(\.description) ?? "?"
        let stationHour = self.slot.map { "\($0.station) \($0.date) \($0.hour < 10 ? "0" : "")\($0.hour):00" } ?? "?"
        switch (language, reason) {
        case (.english, .unknownStation): return "There is no station \(value)."
        case (.turkish, .unknownStation): return "\(value) adında bir istasyon yok."
        case (.english, .unknownSocket): return "Station \(slot.prefix { $0 != "/" }) has no socket \(value)."
        case (.turkish, .unknownSocket): return "İstasyonda \(value) numaralı soket yok."
        case (.english, .invalidHour): return "Hour \(value) is not an hour of the day (0–23)."
        case (.turkish, .invalidHour): return "\(value) geçerli bir saat değil (0–23)."
        case (.english, .unsupportedDate): return "\(date) is outside the supported dates (years 1900–2399)."
        case (.turkish, .unsupportedDate): return "\(date) desteklenen tarihlerin dışında (1900–2399 yılları)."
        case (.english, .invalidRequestID):
            return "Request id \(value) is not valid: use 1 to \(IdentifierRule.maxUTF8Bytes) UTF-8 bytes, "
                + "without surrounding spaces or control characters."
        case (.turkish, .invalidRequestID):
            return "\(value) istek kimliği geçersiz: başında ve sonunda boşluk ya da kontrol karakteri olmadan "
                + "1 ile \(IdentifierRule.maxUTF8Bytes) UTF-8 bayt arasında olmalı."
        case (.english, .nonexistentLocalTime):
            return "\(slot) does not exist: the clocks skip that hour (daylight saving time)."
        case (.turkish, .nonexistentLocalTime):
            return "\(slot) diye bir saat yok: yaz saati uygulamasında bu saat atlanıyor."
        case (.english, .slotInPast): return "\(slot) is in the past; pick a later date or hour."
        case (.turkish, .slotInPast): return "\(slot) geçmişte kaldı; daha ileri bir tarih veya saat seçin."
        case (.english, .tooSoon): return "\(slot) starts too soon; the earliest bookable start is \(instant)."
        case (.turkish, .tooSoon): return "\(slot) çok yakın; en erken \(instant) için randevu alınabilir."
        case (.english, .beyondHorizon): return "\(slot) is too far ahead; the last bookable date is \(date)."
        case (.turkish, .beyondHorizon): return "\(slot) çok ileride; son randevu tarihi \(date)."
        case (.english, .socketClosed): return "The socket is closed on that date: \(slot)."
        case (.turkish, .socketClosed): return "Soket o tarihte kapalı: \(slot)."
        case (.english, .outsideOpeningHours): return "\(slot) is outside the socket's opening hours that day."
        case (.turkish, .outsideOpeningHours): return "\(slot) soketin o günkü çalışma saatleri dışında."
        case (.english, .slotTaken): return "\(slot) is already booked."
        case (.turkish, .slotTaken): return "\(slot) dolu; başka bir saat seçin."
        case (.english, .noMatchingSocketFree): return "No \(value) socket is free at \(stationHour)."
        case (.turkish, .noMatchingSocketFree): return "\(stationHour) için boş \(value) soket yok."
        case (.english, .userLimitReached):
            return "You already have \(limit) upcoming bookings, the most allowed; cancel one first."
        case (.turkish, .userLimitReached):
            return "Zaten \(limit) güncel randevunuz var, izin verilen en fazla sayı bu; önce birini iptal edin."
        case (.english, .conflictingRequestID):
            return "Request id \(requestID?.rawValue ?? value) was already used for a different request."
        case (.turkish, .conflictingRequestID):
            return "\(requestID?.rawValue ?? value) istek kimliği farklı bir istek için zaten kullanıldı."
        case (.english, .invalidReminder): return "A reminder offset of \(value) seconds is not valid."
        case (.turkish, .invalidReminder): return "\(value) saniyelik hatırlatma süresi geçerli değil."
        case (.english, .reminderInPast): return "The reminder time \(instant) has already passed."
        case (.turkish, .reminderInPast): return "Hatırlatma zamanı \(instant) çoktan geçti."
        case (.english, .unknownBooking): return "There is no booking \(booking)."
        case (.turkish, .unknownBooking): return "\(booking) numaralı randevu yok."
        case (.english, .notOwner): return "Booking \(booking) belongs to another user."
        case (.turkish, .notOwner): return "\(booking) numaralı randevu başka bir kullanıcıya ait."
        case (.english, .alreadyCancelled): return "Booking \(booking) is already cancelled."
        case (.turkish, .alreadyCancelled): return "\(booking) numaralı randevu zaten iptal edilmiş."
        case (.english, .cancellationCutoffPassed):
            return "Booking \(booking) can no longer be cancelled; the deadline was \(instant)."
        case (.turkish, .cancellationCutoffPassed):
            return "\(booking) numaralı randevu artık iptal edilemez; son tarih \(instant) idi."
        case (.english, .rescheduleCutoffPassed):
            return "Booking \(booking) can no longer be moved; the deadline was \(instant)."
        case (.turkish, .rescheduleCutoffPassed):
            return "\(booking) numaralı randevu artık taşınamaz; son tarih \(instant) idi."
        case (.english, .rescheduleToOtherStation):
            return "Booking \(booking) can only move to another hour or socket of station \(value); "
                + "cancel it and book the other station instead."
        case (.turkish, .rescheduleToOtherStation):
            return "\(booking) numaralı randevu yalnızca \(value) istasyonunun başka bir saatine ya da soketine "
                + "taşınabilir; başka bir istasyon için iptal edip yeniden randevu alın."
        case (.english, .slotHasBookings):
            return "The change would close hours holding \(limit) bookings, and was refused."
        case (.turkish, .slotHasBookings):
            return "Bu değişiklik \(limit) randevusu olan saatleri kapatacağı için reddedildi."
        case (.english, .released) where self.booking != nil:
            return "Booking \(booking) is no longer held: its date was released (the journal keeps it)."
        case (.turkish, .released) where self.booking != nil:
            return "\(booking) numaralı randevu artık tutulmuyor: tarihi serbest bırakıldı (günlükte kayıtlı)."
        case (.english, .released) where self.slot != nil:
            return "\(slot) is no longer held: its date was released (the journal keeps it)."
        case (.turkish, .released) where self.slot != nil:
            return "\(slot) artık tutulmuyor: tarihi serbest bırakıldı (günlükte kayıtlı)."
        case (.english, .released): return "\(date) was released; its hours can no longer change."
        case (.turkish, .released): return "\(date) tarihi serbest bırakıldı; saatleri artık değiştirilemez."
        case (.english, .slotHeld): return "\(slot) is held for a booking being made; try again later or pick another."
        case (.turkish, .slotHeld):
            return "\(slot) şu an alınmakta olan bir randevu için ayrıldı; sonra deneyin ya da başka bir saat seçin."
        case (.english, .holdExpired):
            return "Your hold on \(slot) expired at \(instant); the slot is no longer kept for you."
        case (.turkish, .holdExpired):
            return "\(slot) için ayırmanızın süresi \(instant) itibarıyla doldu; saat artık sizin için tutulmuyor."
        case (.english, .holdLimitReached):
            return "You already hold \(limit) slots, the most allowed at once; confirm or release one first."
        case (.turkish, .holdLimitReached):
            return
                "Zaten \(limit) saat ayırdınız, aynı anda izin verilen en fazla sayı bu; önce birini onaylayın ya da bırakın."
        case (.english, .unknownHold): return "You hold no slot \(slot)."
        case (.turkish, .unknownHold): return "\(slot) için bir ayırmanız yok."
        case (.english, .checkInNotOpen):
            return "Booking \(booking) cannot be checked in yet; check-in opens at \(instant)."
        case (.turkish, .checkInNotOpen):
            return "\(booking) numaralı randevuya henüz giriş yapılamaz; giriş \(instant) itibarıyla açılır."
        case (.english, .checkInClosed):
            return "Booking \(booking) can no longer be checked in; check-in closed at \(instant) (a no-show)."
        case (.turkish, .checkInClosed):
            return
                "\(booking) numaralı randevuya artık giriş yapılamaz; giriş \(instant) itibarıyla kapandı (gelinmedi)."
        case (.english, .invalidCatalog): return "The new station list is invalid: \(self.value ?? "?")."
        case (.turkish, .invalidCatalog): return "Yeni istasyon listesi geçersiz: \(self.value ?? "?")."
        case (.english, .timeZoneHasBookings):
            return "Station \(value) holds \(limit) bookings, so its time zone cannot change."
        case (.turkish, .timeZoneHasBookings):
            return "\(value) istasyonunda \(limit) randevu var; saat dilimi değiştirilemez."
        case (.english, .catalogFixed):
            return "This scheduler's catalog is fixed; change the catalog of a ledger or a store, "
                + "or build the next scheduler with changingCatalog."
        case (.turkish, .catalogFixed):
            return "Bu zamanlayıcının istasyon listesi sabit; listeyi bir defterde ya da depoda değiştirin "
                + "veya sonraki zamanlayıcıyı changingCatalog ile kurun."
        case (.english, .notCheckedIn): return "Booking \(booking) was not checked in, so it cannot be checked out."
        case (.turkish, .notCheckedIn): return "\(booking) numaralı randevuya giriş yapılmadı; çıkış yapılamaz."
        case (.english, .alreadyCheckedOut): return "Booking \(booking) is already checked out; its session ended."
        case (.turkish, .alreadyCheckedOut): return "\(booking) numaralı randevudan zaten çıkış yapıldı; oturum bitti."
        case (.english, .wrongAccessCode):
            return "The code presented for booking \(booking) is not the code of its socket."
        case (.turkish, .wrongAccessCode):
            return "\(booking) numaralı randevu için girilen kod, soketin kodu değil."
        }
    }
}
