"""The root of agency's error tree. Every error agency raises on purpose derives from
AgencyError; the command line maps the tree to exit codes in one table
(bot/cli/exit_codes.py). The builtin base each error had before stays a second base, so
`except ValueError` keeps catching what it caught.
"""

from __future__ import annotations


class AgencyError(Exception):
    """An error agency raises on purpose (exit 1 when it reaches the command line)."""


class InvalidInputError(AgencyError, ValueError):
    """An argument, profile or file the user gave is not usable (exit 4)."""


class SchemaError(AgencyError, ValueError):
    """A record does not match its schema: a suite line, a recorded fixture (exit 5)."""
