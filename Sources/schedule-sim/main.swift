print("schedule-sim")
