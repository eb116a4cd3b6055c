"""The checks' tally: what passed, what failed, and the last line every check script prints."""


class Tally:
    def __init__(self):
        self.passed, self.failures = 0, []

    def expect(self, what, condition, detail=""):
        if condition:
            self.passed += 1
        else:
            self.fail(f"{what} {detail}")

    def fail(self, text):
        self.failures.append(text)

    def report(self):
        """Prints each failure and "N passed, M failed"; the exit status (0 when none failed)."""
        for failure in self.failures:
            print("FAIL", failure)
        print(f"{self.passed} passed, {len(self.failures)} failed")
        return 0 if not self.failures else 1
