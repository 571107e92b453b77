"""Shelter: what a shelter is and how one gets built. Geometry (bounds, site signature),
the blueprint, site search, earthwork, the verifier and its light reckoning, the door, the
bed and sleeping in it, the shelter tools and test doubles for hand-built regions.

May import perception, llm, stream, planning and tools; never the executor,
agents, goals or cognition. See agency/layers.py.
"""
