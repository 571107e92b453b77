"""Cognition: deciding what is worth doing. Drive ticks, the keep-alive loop and its LLM
thoughts, the sanitizer, grounding, eligibility (who may make a thought actionable), the
situation gate and frame, thought recording, and the agency counters.

May import perception, llm, stream, planning, execution (to ask what the bot can do: the
routable actions, the recipes) and shelter; never goals or eval. See agency/layers.py.
"""
