"""The command line's exit codes and the one table that maps the error tree onto them.

0 ok; 1 failure; 3 initialization failure (server unreachable, node missing, bridge dead,
LLM provider unreachable when required); 4 invalid arguments or config; 5 schema
validation failure (e.g. an eval suite line).
"""

from __future__ import annotations

from agency.errors import AgencyError, InvalidInputError, SchemaError
from agency.llm.errors import LlmConfigError, ToolSetupError
from bot.config.loader import ConfigError
from bot.runtime.errors import BotRuntimeError, InitError

EXIT_OK, EXIT_FAILURE, EXIT_INIT, EXIT_INVALID, EXIT_SCHEMA = 0, 1, 3, 4, 5
EXIT_INTERRUPTED = 130  # a follow cut short by Ctrl-C, as shells report SIGINT

# First match wins: the more specific classes come before their bases.
EXIT_BY_ERROR: tuple[tuple[type[BaseException], int], ...] = (
    (ConfigError, EXIT_INVALID),
    (InvalidInputError, EXIT_INVALID),
    (LlmConfigError, EXIT_INVALID),
    (SchemaError, EXIT_SCHEMA),
    (ToolSetupError, EXIT_INIT),
    (InitError, EXIT_INIT),
    (BotRuntimeError, EXIT_FAILURE),
    (AgencyError, EXIT_FAILURE),
)
KNOWN_ERRORS: tuple[type[BaseException], ...] = tuple(cls for cls, _ in EXIT_BY_ERROR)


def exit_code_for(error: BaseException) -> int:
    """The exit code for an error of the tree; an error may refine it (`exit_code`)."""
    own = getattr(error, "exit_code", None)
    if isinstance(own, int):
        return own
    for cls, code in EXIT_BY_ERROR:
        if isinstance(error, cls):
            return code
    return EXIT_FAILURE
