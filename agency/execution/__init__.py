"""Execution: doing a task. Workflows, agents, the executor and the reflexes, above the
tools room (validated, queued, time-boxed actions on the Body) and the shelter room, which
adds the shelter tools.

May import perception, places, llm, stream, planning, tools and shelter. See agency/layers.py.
"""
