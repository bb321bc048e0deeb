"""``vtm-sim table play``: the whole fight at one prompt.

Each line typed is one command: an option (index, label, short name or a prefix),
``OPTION @ FACES`` with entered dice, ``s`` (the suggestion; an empty line then takes
it), ``a`` (the NPCs play until a PC must decide), ``u`` (undo), ``?`` (the table),
``q`` (quit). A missing or wrong roll is asked again, not lost. The prompt completes
option labels and short names: with prompt_toolkit when it is installed, else with
readline; piped input (tests, scripts) is read line by line.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from vtm_sim.table.service import TableService

HELP = ("Type an option (its number, label, short name or a prefix; Tab completes), "
        "OPTION @ FACES to enter the dice (8,7,3/5,5: rolls split by /), s for the NPC's "
        "suggestion (then Enter takes it), a to let the NPCs play until a PC decides, "
        "u to undo, ? to show the table, q to quit.")


def _reader(words: Callable[[], list[str]]) -> Callable[[str], str | None]:
    """A line reader completing ``words()``; None at the end of the input."""
    if not sys.stdin.isatty():
        def piped(prompt: str) -> str | None:
            click.echo(prompt, nl=False)
            line = sys.stdin.readline()
            if not line:
                click.echo()
                return None
            click.echo(line.rstrip("\n"))
            return line.rstrip("\n")

        return piped
    try:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.completion import Completer, Completion

        class _Words(Completer):  # type: ignore[misc,unused-ignore]
            def get_completions(self, document: Any, complete_event: Any) -> Any:
                text = document.text_before_cursor.lower()
                for w in words():
                    if w.lower().startswith(text):
                        yield Completion(w, start_position=-len(document.text_before_cursor))

        session: Any = PromptSession(completer=_Words())

        def toolkit(prompt: str) -> str | None:
            try:
                return str(session.prompt(prompt))
            except (EOFError, KeyboardInterrupt):
                return None

        return toolkit
    except ImportError:
        pass
    try:
        import readline

        def complete(text: str, state: int) -> str | None:
            line = readline.get_line_buffer().lower()
            found = [w for w in words() if w.lower().startswith(line)]
            # readline completes the word under the cursor: hand back its remainder
            cut = len(line) - len(text)
            return found[state][cut:] if state < len(found) else None

        readline.set_completer_delims("")
        readline.set_completer(complete)
        readline.parse_and_bind("tab: complete")
    except ImportError:
        pass

    def plain(prompt: str) -> str | None:
        try:
            return input(prompt)
        except (EOFError, KeyboardInterrupt):
            return None

    return plain


def play_loop(svc: TableService, name: str, *, seconds: float = 2.0) -> None:
    """Read commands until ``q`` or the end of the input; errors are said, not fatal."""
    from vtm_sim.cli.tables import _print_step, show_lines
    from vtm_sim.errors import VtmSimError
    from vtm_sim.table.errors import FacesNeeded
    from vtm_sim.table.service import parse_faces

    shown = svc.show(name)
    state: dict[str, Any] = {"shown": shown, "suggested": None}

    def words() -> list[str]:
        p = state["shown"]["pending"]
        if p is None:
            return []
        return [c["label"] for c in p["choices"]] + [c["short"] for c in p["choices"]]

    read = _reader(words)
    click.echo(HELP)
    for line in show_lines(shown):
        click.echo(line)
    while True:
        p = state["shown"]["pending"]
        if p is None:
            click.echo("The fight is over.")
            return
        prompt = f"[{state['shown']['version']}] {p['actor']} ({p['player']}), {p['decision']}> "
        text = read(prompt)
        if text is None:
            return
        text = text.strip()
        try:
            if text in ("q", "quit", "exit"):
                return
            if text in ("?", "help", "h"):
                click.echo(HELP)
                for line in show_lines(state["shown"]):
                    click.echo(line)
                continue
            if text == "" and state["suggested"] is None:
                continue
            if text in ("s", "suggest"):
                s = svc.suggest(name, seconds=seconds)
                state["suggested"] = s
                click.echo(f"Suggestion, to {s['goal_words']}: {s['index']}. {s['label']}")
                click.echo(f"  {s['reason']}")
                click.echo("  (Enter takes it; or type another option.)")
                continue
            if text in ("a", "auto"):
                out = svc.auto(name)
                for step in out["steps"]:
                    _print_step(step)
                click.echo(f"(stopped: {out['stopped']})")
                state["shown"], state["suggested"] = out["table"], None
                _brief(state["shown"])
                continue
            if text in ("u", "undo"):
                state["shown"], state["suggested"] = svc.undo(name), None
                _brief(state["shown"])
                continue
            by = "storyteller"
            faces_text = ""
            if text == "":
                option: str | int = state["suggested"]["index"]
                by = "suggestion"
            else:
                option, _, faces_text = text.partition("@")
                option = option.strip()
            rolls = parse_faces(faces_text) if faces_text.strip() else []
            while True:
                try:
                    out = svc.choose(name, option, faces=rolls or None,
                                     version=state["shown"]["version"], by=by)
                    break
                except FacesNeeded as exc:
                    click.echo(str(exc))
                    more = read(f"faces for {exc.roll['who']}'s {exc.roll['what']} "
                                f"({exc.roll['dice']} dice)> ")
                    if more is None:
                        return
                    try:
                        got = parse_faces(more)
                    except VtmSimError as bad:
                        click.echo(str(bad))
                        continue
                    rolls = rolls[: exc.roll["index"]] + got
            _print_step(out["step"])
            state["shown"], state["suggested"] = out["table"], None
            _brief(state["shown"])
        except VtmSimError as exc:
            click.echo(f"Error: {exc}")


def _brief(shown: dict[str, Any]) -> None:
    from vtm_sim.cli.tables import show_lines

    for line in show_lines(shown, brief=True):
        click.echo(line)
