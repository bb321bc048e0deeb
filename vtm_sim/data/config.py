"""Reading YAML configuration into validated frozen objects (STYLE 10).

Every error is a :class:`ConfigError` whose one-line message names the file,
the key and what was expected.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Final, TypeVar

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from vtm_sim.errors import ConfigError

M = TypeVar("M", bound=BaseModel)

# How far from the origin a position (or a wall's, an obstacle's end) may be, in yards:
# a battlefield of 20 km across is larger than any fight; past it a number is a typo
# (1e308 overflows the distances, .nan and .inf compare false with everything)
MAX_YARDS: Final = 10_000.0


def _yards(v: float) -> float:
    if not -MAX_YARDS <= v <= MAX_YARDS:  # also false for nan
        raise ValueError(f"expected a finite number of yards from -{MAX_YARDS:g} to "
                         f"{MAX_YARDS:g} (got {v!r})")
    return v


# A coordinate in yards, finite and within MAX_YARDS of the origin
Yards = Annotated[float, AfterValidator(_yards)]


class StrictModel(BaseModel):
    """The base of every model read from a file: unknown keys are errors, a read model
    is frozen, and its schema is built on first use (keeps imports fast)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

class _UniqueKeys:
    """A mixin for a safe YAML loader: a mapping that repeats a key is an error, not the
    last value silently winning (every user file is read through it)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # ``<<: *base`` may override a merged key
                key = self.construct_object(key_node, deep=True)  # type: ignore[attr-defined]
                try:
                    new = key not in seen
                except TypeError:  # unhashable: the base class says so
                    continue
                if not new:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"duplicate key {key!r}", key_node.start_mark)
                seen.add(key)
        return super().construct_mapping(node, deep)  # type: ignore[misc]


class UniqueKeyLoader(_UniqueKeys, yaml.SafeLoader):
    """``yaml.SafeLoader`` refusing duplicate keys."""


# libyaml's parser when PyYAML was built with it (about 10x faster on the tables); the
# constructor is the same safe one (refusing duplicate keys too), so a file that parses
# gives the same data
_FAST_LOADER: Any = (
    type("FastUniqueKeyLoader", (_UniqueKeys, yaml.CSafeLoader), {})
    if hasattr(yaml, "CSafeLoader") else UniqueKeyLoader
)


def config_dir() -> Path:
    """The shipped ``configs/`` folder (override with VTM_SIM_CONFIGS).

    An installed wheel carries it inside the package; a source checkout (and
    an editable install) has it beside the package.
    """
    env = os.environ.get("VTM_SIM_CONFIGS")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent.parent  # vtm_sim/, not vtm_sim/data/
    packaged = here / "configs"
    return packaged if packaged.is_dir() else here.parent / "configs"


def parse_yaml(text: str) -> Any:
    """``yaml.safe_load``, with libyaml's parser where PyYAML has it, refusing a
    mapping that repeats a key (``duplicate key 'name'``, with its line).

    A text libyaml refuses is parsed again by PyYAML's own parser, so errors
    (their line and wording) are PyYAML's, as with ``yaml.safe_load``.

    Raises:
        yaml.YAMLError: the text is not valid YAML.
    """
    try:
        return yaml.load(text, Loader=_FAST_LOADER)
    except yaml.YAMLError:
        if _FAST_LOADER is UniqueKeyLoader:
            raise
        return yaml.load(text, Loader=UniqueKeyLoader)


def load_yaml(path: Path) -> Any:
    """Parse a YAML file safely; a missing or malformed file is a ConfigError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not a text file (byte {exc.start} is not UTF-8); "
                          "expected YAML") from None
    try:
        return parse_yaml(text)
    except RecursionError:
        raise ConfigError(f"{path}: invalid YAML: nested too deeply") from None
    except yaml.reader.ReaderError as exc:  # a control character: not a text file
        raise ConfigError(f"{path}: not a text file (character {exc.position + 1} is "
                          f"#x{exc.character if isinstance(exc.character, int) else 0:04x}, "
                          "a control character); expected YAML") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "malformed YAML"
        raise ConfigError(f"{path}: invalid YAML{where}: {problem}") from None


def describe(exc: ValidationError, prefix: str = "") -> str:
    """The first validation error as 'key.sub: expected ...'."""
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    if prefix:
        loc = f"{prefix}.{loc}" if loc else prefix
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        msg = "unknown key"
    elif err["type"] == "missing":
        msg = "required key is missing"
    elif err["type"] == "value_error":
        msg = msg.removeprefix("Value error, ")
    elif "input" in err and err["type"] not in ("model_type", "dict_type"):
        msg = f"{msg} (got {err['input']!r})"
    return f"{loc}: {msg}" if loc else msg


def validate(model: type[M], data: Any, source: Path | str, prefix: str = "") -> M:
    """Validate ``data`` as ``model``; errors name the source file and key."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: {prefix or 'top level'}: expected a mapping")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{source}: {describe(exc, prefix)}") from None
    except ConfigError as exc:  # raised by model validators
        raise ConfigError(f"{source}: {exc}") from None
