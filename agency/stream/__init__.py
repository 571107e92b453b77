"""Stream: the cognitive stream. Durable thoughts, the opt-in actionable feed, ack and prune.

Imports only the shared models at the top of agency/. See agency/layers.py.
"""
