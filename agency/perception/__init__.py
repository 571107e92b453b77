"""Perception: what the bot senses. Stimulus events and awareness thoughts from successive
snapshots, the replay body that plays a recorded session back, and the gate that keeps
world-acting jobs from running on a stale view.

Imports only the shared models at the top of agency/ (world, clock, db, names, blocks,
thoughts, ...). See agency/layers.py for the order of the rooms.
"""
