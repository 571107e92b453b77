"""The API's routes, one module per resource; bot/runtime/api/app.py includes them.

thoughts: the cognitive stream, posted thoughts, the keep-alive poke. goals: a user's
goals. tasks: tasks, their commands and their event streams. bots: the bots, and a bot's
snapshot and blocks. places: places and shelters. live: the dashboard's live stream, the
log tail and the 3D view. tools: the tool catalog and direct actions. health: health,
metrics and counters. The routes of one bot (bots.BOT_ROUTES, tools.BOT_ROUTES) are
included twice: for the daemon's first bot, and under /api/bots/{name} for each bot of a
fleet."""
