"""mcbot agency: pure-Python cognition, planning and execution (no bot/, no javascript)."""
