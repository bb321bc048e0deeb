"""Every code block of the README and of docs/ runs as written, and the site builds.

The way python-chess runs its README: each page's fenced blocks are read in order.

- ```` ```python ```` blocks are executed, each in a fresh namespace; one whose first
  line is ``# needs: MODULE, ...`` (an optional extra's: ``# needs: ray.rllib, torch``)
  only when those modules import, else it is skipped (the extra's own test runs it);
- ```` ```console ```` blocks: every line that starts with ``$ `` is a ``vtm-sim``
  command (continued by a trailing backslash, several joined by ``&&``), run through
  the command line in-process (click's CliRunner), and must exit with status 0;
  other lines are the output a reader would see, and are not checked;
- a block with a file name, ```` ```yaml title="state.yaml" ````, is that file: it is
  written before the page's blocks run, so the commands that name it read the very
  file the page shows;
- blocks that do not run say so by their language (:data:`NOT_RUN`: shell lines that
  set up a venv, need torch or take minutes, file formats, output); any other
  language fails here, so a new block has to choose.

A page runs in a scratch folder that looks like the repository root (a link to each
top-level entry: ``configs/``, ``experiments/``, ...), so paths resolve as they would
for a reader at the root and the files the commands write stay out of the checkout.
The pages generated at build time (docs/hooks/generate.py) are run too.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
HOOK = DOCS / "hooks" / "generate.py"
README_MAX_LINES = 150

RUN = ("python", "console")
NEEDS = re.compile(r"^# needs: ([\w.]+(?:, [\w.]+)*)")
# Shown, not run: `sh` for shell lines (a venv, pip, torch, runs of minutes, a terminal),
# the file formats (each `title=` one is still written and used), and output.
NOT_RUN = ("sh", "yaml", "json", "text")
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
TITLE = re.compile(r'title="([^"]+)"')


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    title: str | None
    body: str

    def where(self) -> str:
        return f"{self.page}:{self.line} ({self.lang})"


def blocks_of(page: str, text: str) -> list[Block]:
    found = []
    for m in FENCE.finditer(text):
        info = m.group("info").strip()
        lang = info.split()[0] if info else ""
        title = TITLE.search(info)
        found.append(Block(page, text.count("\n", 0, m.start()) + 1, lang,
                           title.group(1) if title else None, m.group("body")))
    return found


def source_pages() -> dict[str, str]:
    """README.md and every page under docs/, by path from the root."""
    pages = {"README.md": README.read_text(encoding="utf-8")}
    for path in sorted(DOCS.rglob("*.md")):
        pages[path.relative_to(ROOT).as_posix()] = path.read_text(encoding="utf-8")
    return pages


def hook_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks_generate", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def have_mkdocs() -> bool:
    return importlib.util.find_spec("mkdocs") is not None


# --- running the blocks ---------------------------------------------------------------


def commands(block: Block) -> list[list[str]]:
    """The ``vtm-sim`` command lines of a console block, as argument lists."""
    lines, pending = [], ""
    for raw in block.body.splitlines():
        if pending:
            pending += " " + raw.strip()
        elif raw.startswith("$ "):
            pending = raw[2:].strip()
        else:
            continue  # output
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
            continue
        lines.append(pending)
        pending = ""
    assert not pending, f"{block.where()}: a command ends with a backslash"
    out = []
    for line in lines:
        words = shlex.split(line, comments=True)
        for start, command in _split_and(words):
            assert command and command[0] == "vtm-sim", (
                f"{block.where()}: `$ {line}`: a console block runs only `vtm-sim` commands "
                "(write other shell lines in an ```sh block, which is not run)")
            del start
            out.append(command[1:])
    return out


def _split_and(words: list[str]) -> list[tuple[int, list[str]]]:
    parts: list[tuple[int, list[str]]] = [(0, [])]
    for i, word in enumerate(words):
        if word == "&&":
            parts.append((i + 1, []))
        else:
            parts[-1][1].append(word)
    return parts


def importable(module: str) -> bool:
    """Whether ``module`` imports (not only is found: Ray's core wheel holds ray.rllib
    without the packages the rllib extra adds)."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def run_page(blocks: list[Block], workdir: Path) -> None:
    """Write the page's files, then run its blocks in order in ``workdir``."""
    from vtm_sim.cli import main

    for block in blocks:
        if block.title:
            (workdir / block.title).write_text(block.body, encoding="utf-8")
    for block in blocks:
        needs = NEEDS.match(block.body)
        if block.lang == "python" and needs and not all(
                importable(m) for m in needs.group(1).split(", ")):
            continue
        if block.lang == "python":
            try:
                exec(compile(block.body, block.where(), "exec"), {"__name__": "__docs__"})
            except Exception as exc:  # name the block, keep the traceback
                raise AssertionError(f"{block.where()} raised {exc!r}") from exc
        elif block.lang == "console":
            for args in commands(block):
                result = CliRunner().invoke(main, args, catch_exceptions=True)
                assert result.exit_code == 0, (
                    f"{block.where()}: `vtm-sim {shlex.join(args)}` exited with "
                    f"{result.exit_code}:\n{result.output}\n{result.exception!r}")


@pytest.fixture
def repo_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch folder that looks like the repository root, as the working directory."""
    for entry in ROOT.iterdir():
        if entry.name == ".git" or entry.name.startswith(".venv"):
            continue
        (tmp_path / entry.name).symlink_to(entry)
    monkeypatch.chdir(tmp_path)
    return tmp_path


PAGES = source_pages()


@pytest.mark.parametrize("page", [p for p, text in PAGES.items() if blocks_of(p, text)])
def test_every_block_of_the_page_runs(page: str, repo_copy: Path) -> None:
    blocks = blocks_of(page, PAGES[page])
    for block in blocks:
        assert block.lang in RUN + NOT_RUN, (
            f"{block.where()}: a block's language says whether it runs: one of "
            f"{', '.join(RUN)} (run) or {', '.join(NOT_RUN)} (not run)")
        assert not block.title or not (repo_copy / block.title).exists(), (
            f"{block.where()}: title={block.title!r} would replace a file of the checkout")
    run_page(blocks, repo_copy)


@pytest.mark.skipif(not have_mkdocs(), reason="mkdocs is not installed (the docs extra)")
def test_every_block_of_the_generated_pages_runs(repo_copy: Path) -> None:
    """The pages docs/hooks/generate.py makes at build time (the file formats' commands)."""
    hook = hook_module()
    generated = {path: text for path, text in hook._generated().items() if path != "index.md"}
    assert "reference/file-formats.md" in generated
    ran = 0
    for path, text in generated.items():
        blocks = [b for b in blocks_of(f"(generated) {path}", text) if b.lang in RUN]
        run_page(blocks, repo_copy)
        ran += len(blocks)
    assert ran >= 1


def test_no_indented_commands_outside_blocks() -> None:
    """A command written as an indented block would not run: fence it instead."""
    bad = []
    for page, text in PAGES.items():
        outside = FENCE.sub("", text)
        bad += [f"{page}: {line.strip()}" for line in outside.splitlines()
                if re.match(r"^ {4}(\$ )?(vtm-sim|python|\.venv)", line)]
    assert not bad, "indented commands (fence them as console or sh):\n" + "\n".join(bad)


def test_console_lines_are_parsed_as_a_shell_would() -> None:
    block = Block("x.md", 1, "console", None,
                  '$ vtm-sim a --npc "Detective Ortiz" # note\noutput line\n'
                  "$ vtm-sim b \\\n    --c 1 && vtm-sim d\n")
    assert commands(block) == [["a", "--npc", "Detective Ortiz"], ["b", "--c", "1"], ["d"]]
    with pytest.raises(AssertionError, match="runs only `vtm-sim` commands"):
        commands(Block("x.md", 1, "console", None, "$ pip install vtm-sim\n"))


def test_a_block_that_needs_an_absent_module_is_skipped(tmp_path: Path) -> None:
    skipped = Block("x.md", 1, "python", None, "# needs: json, no_such_module_here\n1 / 0\n")
    run_page([skipped], tmp_path)
    ran = Block("x.md", 5, "python", None, "# needs: json, re  (the stdlib)\n1 / 0\n")
    with pytest.raises(AssertionError, match=r"x\.md:5"):
        run_page([ran], tmp_path)


# --- the README -----------------------------------------------------------------------


def test_readme_is_a_two_minute_read() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_MAX_LINES, f"README.md has {len(lines)} lines"


def quick_start() -> list[str]:
    text = PAGES["README.md"]
    section = text.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    return [b.body.strip() for b in blocks_of("README.md", section)]


def test_readme_quick_start_is_the_two_commands_ci_runs() -> None:
    """The main job and the test command, exactly as .ci/run runs them (the main job in
    a venv of its own, .venv-quick)."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    main_job, tests = quick_start()
    assert main_job.endswith("vtm-sim tournament") and "\n" not in main_job
    assert main_job.replace(".venv", ".venv-quick") in ci
    assert tests.startswith("python3 -m venv .venv && ") and tests in ci
    assert "mkdocs build --strict" in ci.split(tests, 1)[1]


def test_readme_links_every_page_it_names() -> None:
    links = re.findall(r"\]\((docs/[^)#]+)", PAGES["README.md"])
    assert links
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing, f"README.md links to missing pages: {missing}"


def test_readme_and_docs_use_the_public_api() -> None:
    """Examples import only `vtm_sim`'s public names (Internals may go deeper)."""
    import vtm_sim

    bad = []
    for page, text in PAGES.items():
        if page == "docs/layout.md":
            continue
        for block in blocks_of(page, text):
            if block.lang != "python":
                continue
            bad += [f"{block.where()}: {m.group(0)}"
                    for m in re.finditer(r"(?:from|import) vtm_sim\.[\w.]+", block.body)]
            for m in re.finditer(r"from vtm_sim import (\([^)]*\)|[^\n]+)", block.body):
                names = re.split(r"[\s,()]+", m.group(1).split("#")[0])
                bad += [f"{block.where()}: {name}" for name in names
                        if name and name not in vtm_sim.__all__]
    assert not bad, "examples reach past the public API:\n" + "\n".join(bad)


# --- the site -------------------------------------------------------------------------


@pytest.mark.skipif(not have_mkdocs(), reason="mkdocs is not installed (the docs extra)")
def test_the_site_builds_strict(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    site = tmp_path / "site"
    for page in ("index.html", "guide/index.html", "reference/cli/index.html",
                 "reference/file-formats/index.html", "environments/Duel-v6/index.html"):
        assert (site / page).is_file(), page
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    from vtm_sim.cli.base import COMMANDS

    missing = [name for name in COMMANDS if f"vtm-sim {name}" not in cli]
    assert not missing, f"the CLI reference lacks: {missing}"
    duel = (site / "environments" / "Duel-v6" / "index.html").read_text(encoding="utf-8")
    assert "Version History" in duel


@pytest.mark.skipif(not have_mkdocs(), reason="mkdocs is not installed (the docs extra)")
def test_version_history_fails_on_an_unlisted_version() -> None:
    hook = hook_module()
    assert "Version History" in hook.version_history(0, 5)[0]
    with pytest.raises(ValueError, match="no observation version 99"):
        hook.version_history(0, 99)
