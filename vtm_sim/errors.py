"""Errors named by meaning. Bad input subclasses ValueError."""

from __future__ import annotations


class VtmSimError(Exception):
    """Base class of the simulator's own errors."""


class ConfigError(VtmSimError, ValueError):
    """A configuration file or value is wrong: names the file, the key and what was expected.

    Always one line: a line break or other control character the message quotes from the
    file (a key written ``"a\\nb"``) is shown escaped.
    """

    def __init__(self, message: object = "", *args: object) -> None:
        text = str(message)
        if not text.isprintable():
            text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
        super().__init__(text, *args)


class DiceError(VtmSimError, ValueError):
    """Dice supplied by the caller do not fit the roll."""


class IllegalActionError(VtmSimError, ValueError):
    """A choice that the rules do not allow at this decision point."""


class ReplayError(VtmSimError, ValueError):
    """A log does not replay to the state it records."""


class LogFormatError(ReplayError):
    """A log file that is not a battle log at all (bad input, not a failed replay)."""


class StateError(ConfigError):
    """A saved battle state is malformed or does not fit the rules it names."""
