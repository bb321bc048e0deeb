"""Shared pieces of the command line: the group, error handling, dice, JSON."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn

import click
import numpy as np

from vtm_sim.combatant import Combatant
from vtm_sim.dice import RngDice, Roll
from vtm_sim.errors import VtmSimError
from vtm_sim.narration import roll_text

SEED_HELP = "Seed of the dice not given with --faces (default 0)."
RULES_HELP = "Rules profile: a name under configs/rules/ or a YAML file."
MAX_POOL = 100
FACES_LABELS = ("attack", "defense", "damage", "soak")


class UserError(click.ClickException):
    """Bad input: one line on stderr, exit status 2."""

    exit_code = 2


class ReplayFailed(click.ClickException):
    """A log that does not replay: one line on stderr, exit status 1."""

    exit_code = 1


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn the library's errors into one-line messages (STYLE 12)."""
    try:
        yield
    except VtmSimError as exc:
        raise UserError(str(exc)) from None


def _fail(message: str) -> NoReturn:
    raise UserError(message)


_NUMBER_LIST = re.compile(r"\[\s*([-+0-9.eE,\s]*?)\s*\]")


def _dump(data: Any) -> str:
    """Indented JSON with lists of numbers (dice faces) kept on one line."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return _NUMBER_LIST.sub(_one_line, text)


def _one_line(m: re.Match[str]) -> str:
    items = [x.strip() for x in m.group(1).split(",") if x.strip()]
    return "[" + ", ".join(items) + "]"


def _rng_dice(seed: int) -> RngDice:
    return RngDice(np.random.default_rng(seed))


def _parse_faces(text: str, where: str) -> list[int]:
    """``"1, 9,10"`` -> [1, 9, 10]; faces are checked by ScriptedDice (1..10)."""
    items = [t.strip() for t in text.split(",")]
    if items == [""]:
        return []
    try:
        return [int(t) for t in items]
    except ValueError:
        _fail(f"{where}: expected comma-separated d10 faces such as 1,9,10 (got {text!r})")


def _roll_words(r: Roll) -> str:
    """A roll in the narration's words: ``6 dice at difficulty 6 -> ...: 2 successes``."""
    return roll_text({
        "pool": r.pool, "diff": r.difficulty, "faces": list(r.faces), "succ": r.successes,
        "botch": r.botch, "spec": r.specialty, "wp": r.willpower,
    })


def _roll_json(r: Roll | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "pool": r.pool,
        "difficulty": r.difficulty,
        "faces": list(r.faces),
        "successes": r.successes,
        "botch": r.botch,
    }


def _odds_summary(dist: tuple[float, ...]) -> str:
    """``0: 0.1560, 1: 0.1965, ...``; a tail below 0.00005 is summed as ``N+``."""
    last = max((k for k, p in enumerate(dist) if p >= 5e-5), default=0)
    parts = [f"{k}: {p:.4f}" for k, p in enumerate(dist[: last + 1])]
    if last + 1 < len(dist):
        parts.append(f"{last + 1}+: {sum(dist[last + 1 :]):.4f}")
    return ", ".join(parts)


class OneLineErrors(click.Group):
    """Click's usage errors in one line (``Error: ... (see --help)``), exit status 2.

    Click prints three (Usage / Try / Error) for a bad option or value; a user's
    mistake gets one line here, like every other bad input (STYLE 12).
    """

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, False, **extra)
        except click.UsageError as exc:
            ctx = exc.ctx
            where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            click.echo(f"Error: {exc.format_message()}{where}", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="vtm-sim")
def main() -> None:
    """Vampire: The Masquerade (V20) combat simulator.

    Commands that roll dice take --seed (default 0): the same seed prints the
    same output, byte for byte. Bad input prints one line on stderr and exits
    with status 2; a log that fails to replay exits with status 1.
    """


# --- roll -------------------------------------------------------------------


def _health_json(c: Combatant) -> dict[str, Any]:
    d: dict[str, Any] = {
        "track": c.health.marks(),
        "level": c.health.level_name,
        "status": c.health.status.value,
    }
    if c.escaped:  # MOVE-4: ran from the fight (written only then)
        d["escaped"] = True
    return d
