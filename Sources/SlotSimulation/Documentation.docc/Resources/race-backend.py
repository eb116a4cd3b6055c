    def reserve(self, user, where, key):
        slot = tuple(where.values())
        if self.fault == "limit-outside-lock":
            over = self.live(user) >= self.limit
            time.sleep(0.005)
        with self.lock:
            if self.fault != "ignored-keys" and (user, key) in self.keys:
                return 200, self.bookings[self.keys[(user, key)]]
            if self.fault != "ignores-notice" and self.too_late(where):
                return 422, self.too_late(where)
            if slot in self.holder:
                return 409, "taken"
            if self.fault == "limit-outside-lock":
                if over:
                    return 409, "limit"
            elif self.live(user) >= self.limit:
                return 409, "limit"
            self.count += 1
            ref = f"r{self.count}"
            if self.fault == "ack-not-stored" and self.count % 40 == 0:
                return 201, {"ref": ref, "user": user, "where": where, "state": "booked"}
            if self.fault == "check-then-insert":
                self.lock.release()
                time.sleep(0.005)
                self.lock.acquire()
            booking = {"ref": ref, "user": user, "where": where, "state": "booked"}
            self.bookings[ref], self.holder[slot], self.keys[(user, key)] = booking, ref, ref
            return 201, booking
