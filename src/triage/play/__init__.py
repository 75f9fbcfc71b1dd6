"""Ways to play Triage: text rendering now; the terminal game builds on it."""
