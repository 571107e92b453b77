"""Planning: from thought to task. The thought-to-task converter, planning's side of the
stream contract, the task store with its events and idempotency rules, and the stall taxonomy.

May import perception, llm and stream. See agency/layers.py.
"""
