"""Memory of places: where the bot's crafting tables, furnaces and beds stand, per world.

Kept empty on purpose: bot.config.schema imports agency.places.settings before anything
heavy starts, and importing a package runs its __init__. The store is agency.places.store,
the world-scoped memory the tools and the daemon use is agency.places.memory.
"""
