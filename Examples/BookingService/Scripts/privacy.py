"""What another user's booking may reveal: nothing a missing booking's answer does not."""


def same_as_missing(answer, booking, missing, unknown):
    """Whether `answer` (about another user's booking `booking`) is exactly `missing` (the answer
    about the id `unknown`, which no booking has) but for the id itself."""
    if not (isinstance(answer, dict) and isinstance(missing, dict)):
        return False
    if answer.get("booking") != booking or missing.get("booking") != unknown:
        return False
    mine, theirs = dict(answer), dict(missing)
    mine["booking"] = theirs["booking"] = "ID"
    mine["message"] = str(mine.get("message")).replace(booking, "ID")
    theirs["message"] = str(theirs.get("message")).replace(unknown, "ID")
    return mine == theirs
