"""`mcbot mcp`: the bot as an MCP server (the official `mcp` SDK), a thin client of the
running daemon's HTTP API. server.py builds the tools and resources, tools.py the move and
act tools from the daemon's catalog, actions.py runs one as a direct action (progress,
cancel), limits.py is the per-client rate limit, daemon_client.py talks to the daemon,
views.py shapes its JSON, serve.py runs stdio or streamable HTTP."""
