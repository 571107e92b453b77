"""Execution: doing a task. Tools (validated, queued, time-boxed actions on the Body) are
the bottom of this room; workflows, agents, the executor and the reflexes sit above the
shelter room, which adds the shelter tools.

`execution.tools` may import perception, llm, stream and planning; the rest of execution
may also import shelter. See agency/layers.py.
"""
