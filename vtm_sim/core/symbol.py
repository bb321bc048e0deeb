"""The base of the engine's enumerations."""

from __future__ import annotations

from enum import Enum
from operator import attrgetter


class Symbol(Enum):
    """An :class:`~enum.Enum` hashed by identity.

    ``Enum.__hash__`` is Python code (it hashes the member's name), and enum
    members key many dicts on the step path (option kinds, weapon classes,
    damage types); members are singletons, so the identity hash (C code) is
    just as good. Like name hashes, identity hashes differ between processes:
    nothing may depend on the iteration order of a set of members.

    ``value`` is read through C code too (Enum's own property is Python),
    which matters where compiled modules read it on every event.

    Reading a member off its class (``Status.ACTIVE``) is slow in Python 3.11:
    ``EnumType`` defines ``__getattr__``, so every class attribute read goes
    through a Python-level hook (about ten times a module global's cost, in
    both builds). The step path reads some members a hundred times a step, so
    its hottest sites keep them in module constants (``_ACTIVE = Status.ACTIVE``).
    """

    __hash__ = object.__hash__


# (set after the class body: in it, type checkers would take ``value`` for a member)
setattr(Symbol, "value", property(attrgetter("_value_")))  # noqa: B010
