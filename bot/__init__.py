"""mcbot bot: the only Python that touches JSPyBridge. Rooms: runtime/ (the daemon), cli/,
config/, tooling/; their order is declared in bot/layers.py."""
