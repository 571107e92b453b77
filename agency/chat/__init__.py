"""Chat: the players the config trusts give the bot commands in the game's chat, by name or
whisper, and it answers there (docs/chat.md). Lines are cleaned and bounded (lines), read as
a command or a goal (commands), and answered through a rate gate that also keeps strangers to
one polite line each (gate); the handler ties them to the goal intake and the direct actions."""
