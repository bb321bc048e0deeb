"""Reading YAML configuration into validated frozen objects (STYLE 10).

Every error is a :class:`ConfigError` whose one-line message names the file,
the key and what was expected.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from vtm_sim.errors import ConfigError

M = TypeVar("M", bound=BaseModel)


class StrictModel(BaseModel):
    """The base of every model read from a file: unknown keys are errors, a read model
    is frozen, and its schema is built on first use (keeps imports fast)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

# libyaml's parser when PyYAML was built with it (about 10x faster on the tables); the
# constructor is the same safe one, so a file that parses gives the same data
_FAST_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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
    """``yaml.safe_load``, with libyaml's parser where PyYAML has it.

    A text libyaml refuses is parsed again by PyYAML's own parser, so errors
    (their line and wording) are PyYAML's, as with ``yaml.safe_load``.

    Raises:
        yaml.YAMLError: the text is not valid YAML.
    """
    try:
        return yaml.load(text, Loader=_FAST_LOADER)
    except yaml.YAMLError:
        if _FAST_LOADER is yaml.SafeLoader:
            raise
        return yaml.safe_load(text)


def load_yaml(path: Path) -> Any:
    """Parse a YAML file safely; a missing or malformed file is a ConfigError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return parse_yaml(text)
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
