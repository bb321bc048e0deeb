"""MkDocs hook: the pages generated from the code at every build, so they never go stale.

``mkdocs.yml`` names this file under ``hooks:``. It adds, as pages of the site:

- ``reference/file-formats.md``: every file format's JSON Schema (the models behind
  ``vtm-sim schema WHAT``, ``vtm_sim.cli.states.SCHEMAS``) as tables of keys;
- ``environments/<Name>-v6.md``: one page per registered Gymnasium id (``import envs``),
  from its registration, its scenario, the env's spaces and ``envs.env.VtmEnv``'s
  docstring, with a "Version History" from ``docs/environments/history.yaml`` (in the
  docstring's place);
- ``environments/Mixed-v6.md``: the cross-scenario id (``envs.mixed_ids()``), its spaces,
  split, scenarios and version history (``mixed`` in ``history.yaml``);
- ``environments/parallel.md`` and ``environments/aec.md``: the PettingZoo envs, from
  their module docstrings;
- ``reference/policies.md``: every policy name and how it plays (``vtm-sim policies``).

The command-line reference (``docs/reference/cli.md``) is rendered by the mkdocs-click
extension from the Click commands themselves. The generated pages join the nav's
"Environments" and "Reference" sections here (``on_config``).
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
from pathlib import Path
from typing import Any

import yaml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

HERE = Path(__file__).resolve().parent
DOCS = HERE.parent
GENERATED_REFERENCE = {
    "File formats": "reference/file-formats.md",
    "Policies": "reference/policies.md",
}


# --- docstrings to Markdown ------------------------------------------------------------


def rst_to_md(text: str) -> str:
    """The reStructuredText bits of the project's docstrings, as Markdown."""

    def role(m: re.Match[str]) -> str:  # :class:`~a.b.C` -> `C`, :mod:`a.b` -> `a.b`
        name = m.group(2)
        return f"`{name.rsplit('.', 1)[-1] if m.group(1) else name}`"

    text = re.sub(r":(?:mod|class|func|meth|data|attr|exc):`(~?)([^`]+)`", role, text)
    text = text.replace("``", "`")
    return text.replace("::\n", ":\n")


def docstring(obj: Any, *, level: int = 2, drop: tuple[str, ...] = ()) -> str:
    """An object's docstring as Markdown, its ``## Heading`` lines moved to ``level``,
    without the ``## `` sections titled in ``drop``."""
    text = rst_to_md(inspect.cleandoc(obj.__doc__ or ""))
    for title in drop:  # the section, up to the next "## " heading or the end
        text = re.sub(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", "", text,
                      flags=re.M | re.S).rstrip() + "\n"
    return re.sub(r"^## ", "#" * level + " ", text, flags=re.M)


# --- file formats ---------------------------------------------------------------------


def _type_of(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "enum" in prop:
        return " or ".join(f"`{json.dumps(v)}`" for v in prop["enum"])
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    if "anyOf" in prop:
        return " or ".join(_type_of(p) for p in prop["anyOf"])
    kind = prop.get("type", "any")
    if kind == "array":
        if "prefixItems" in prop:
            return "[" + ", ".join(_type_of(p) for p in prop["prefixItems"]) + "]"
        return f"list of {_type_of(prop.get('items', {}))}"
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"map to {_type_of(prop['additionalProperties'])}"
    return str(kind)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _keys_table(schema: dict[str, Any]) -> list[str]:
    props = schema.get("properties", {})
    if not props:
        return ["(no keys)", ""]
    required = set(schema.get("required", []))
    lines = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for key, prop in props.items():
        default = ("**required**" if key in required
                   else f"`{json.dumps(prop['default'])}`" if "default" in prop else "")
        lines.append(f"| `{key}` | {_cell(_type_of(prop))} | {_cell(default)} | "
                     f"{_cell(prop.get('description', ''))} |")
    return [*lines, ""]


def file_formats_page() -> str:
    from vtm_sim.cli.states import SCHEMAS, schema_model

    out = [
        "# File formats",
        "",
        "Generated at every build of this site from the models that read the files, the "
        "same JSON Schemas `vtm-sim schema WHAT` prints. A file with a key not listed "
        "here is refused with one line naming the file and the key (exit status 2). "
        "The guides: [stat blocks](../sheets.md), [scenarios](../scenarios.md), "
        "[state files](../states.md), [tactics](../tactics.md).",
        "",
        "```console",
        *(f"$ vtm-sim schema {what}" for what in sorted(SCHEMAS)),
        "```",
        "",
    ]
    for what in sorted(SCHEMAS):
        schema = schema_model(what).model_json_schema()
        out += [f"## {what}", "", f"`vtm-sim schema {what}`: {schema.get('title', what)}.", ""]
        if schema.get("description"):
            out += [_cell(schema["description"]), ""]
        out += _keys_table(schema)
        for name, sub in schema.get("$defs", {}).items():
            out += [f"### {name}", ""]
            if sub.get("description"):
                out += [_cell(sub["description"]), ""]
            if "enum" in sub:
                out += ["One of " + ", ".join(f"`{json.dumps(v)}`" for v in sub["enum"]) + ".",
                        ""]
            else:
                out += _keys_table(sub)
        out += [f'??? note "The JSON Schema of `{what}`"', "",
                "    ```json"]
        out += ["    " + line for line in json.dumps(schema, indent=2).splitlines()]
        out += ["    ```", ""]
    return "\n".join(out)


# --- environments ---------------------------------------------------------------------


# The docstrings' own "Version History" sections: the pages show history.yaml's instead
HISTORY = ("Version History",)


def _history() -> dict[str, dict[int, str]]:
    data: dict[str, dict[int, str]] = yaml.safe_load(
        (DOCS / "environments" / "history.yaml").read_text(encoding="utf-8"))
    return data


def version_history(env_version: int, obs_version: int, env_kind: str = "env") -> list[str]:
    """The "Version History" section (the docstrings' own, in full); the build fails on a
    version the history lacks. ``env_kind``: the history.yaml key of the id's versions
    (``"env"`` for the scenario ids, ``"mixed"`` for ``vtm_sim/Mixed-v6``)."""
    history = _history()
    for kind, current in ((env_kind, env_version), ("observation", obs_version)):
        if current not in history[kind]:
            raise ValueError(f"docs/environments/history.yaml: no {kind} version {current}: "
                             "say what changed")
    out = ["## Version History", "",
           "The version (`-vN` of the id) goes up whenever the observation layout, the action "
           "catalog or the reward changes; only the current one is registered "
           "(`gym.make` of another raises `DeprecatedEnv` naming it).", ""]
    for v, text in sorted(history[env_kind].items(), reverse=True):
        out.append(f"- v{v}{' (current)' if v == env_version else ''}: {_cell(text)}")
    out += ["", "Observation layout versions (`envs.OBS_VERSION`, in every trained model's "
            "metadata):", ""]
    for v, text in sorted(history["observation"].items(), reverse=True):
        out.append(f"- {v}{' (current)' if v == obs_version else ''}: {_cell(text)}")
    return [*out, ""]


def page_name(env_id: str) -> str:
    return env_id.split("/", 1)[1]


def env_page(env_id: str) -> str:
    import gymnasium as gym

    import envs
    from envs.env import VtmEnv

    spec = gym.spec(env_id)
    scenario_name = spec.kwargs["scenario"]
    env = gym.make(env_id)
    core: VtmEnv = env.unwrapped  # type: ignore[assignment]
    scenario = core.scenario
    obs_space = env.observation_space
    shape = getattr(obs_space, "shape", None)
    out = [
        f"# {env_id}",
        "",
        _cell(scenario.description) or scenario.title,
        "",
        "| | |",
        "|---|---|",
        f"| Scenario | `{scenario_name}`: {scenario.title} (`vtm-sim fight {scenario_name}`) |",
        f"| Action space | `Discrete({env.action_space.n})` |",  # type: ignore[attr-defined]
        f"| Observation space | `Box(-1.0, 1.0, {shape}, float32)` |",
        f"| Version | v{spec.version} (`gym.spec(id).version`) |",
        f"| Observation layout | version {spec.kwargs['obs_version']} "
        '(`gym.spec(id).kwargs["obs_version"]`) |',
        f"| Rules profile | `{scenario.rules.name}` |",
        f"| Turn limit | {scenario.turn_limit} |",
        f"| Max episode steps | {spec.max_episode_steps} |",
        f"| Entry point | `{spec.entry_point}` |",
        f'| Make | `gym.make("{env_id}")` after `import envs` |',
        "",
        "## Combatants",
        "",
        "The agent plays `agent_id` (default 0); the others are answered by `opponents`.",
        "",
        "| id | name | side | kind | weapons |",
        "|---|---|---|---|---|",
    ]
    for i, fighter in enumerate(scenario.fighters):
        stats = fighter.stats
        weapons = ", ".join(w.name for w in stats.weapons) or "unarmed"
        out.append(f"| {i} | {stats.name} | {fighter.side}: {scenario.side_name(fighter.side)} "
                   f"| {stats.kind.value} | {weapons} |")
    env.close()
    out += ["", docstring(VtmEnv, drop=HISTORY), "",
            *version_history(envs.VERSION, envs.OBS_VERSION)]
    return "\n".join(out)


def mixed_page(env_id: str) -> str:
    """The page of the cross-scenario id (envs.mixed): its spaces, its split, its
    docstring and version history."""
    import gymnasium as gym

    import envs
    from envs.mixed import COMMON, TEST_SCENARIOS, VtmMixedEnv, split_scenarios
    from vtm_sim.files.scenarios import load_scenario

    spec = gym.spec(env_id)
    env = gym.make(env_id)
    shape = getattr(env.observation_space, "shape", None)
    out = [
        f"# {env_id}",
        "",
        "Every scenario in one env: a common, padded and masked observation and action "
        "space, a scenario and a side drawn per episode from the training split; the "
        "held-out test split has the same spaces.",
        "",
        "| | |",
        "|---|---|",
        f"| Scenarios | `split=\"train\"` (default): {len(split_scenarios('train'))}; "
        f"`split=\"test\"`: {', '.join(f'`{n}`' for n in TEST_SCENARIOS)}; "
        f"`split=\"all\"`: {len(split_scenarios('all'))} |",
        f"| Action space | `Discrete({env.action_space.n})`, every split and scenario |",  # type: ignore[attr-defined]
        f"| Observation space | `Box(-1.0, 1.0, {shape}, float32)`, every split and scenario |",
        f"| Padding | {COMMON.slots} target slots and `others`/`tempo` rows, "
        f"{COMMON.max_weapons} weapon slots, Celerity 0..{COMMON.max_celerity} "
        "(`envs.mixed.COMMON`) |",
        f"| Version | v{spec.version} (`gym.spec(id).version`) |",
        f"| Observation layout | version {spec.kwargs['obs_version']} "
        '(`gym.spec(id).kwargs["obs_version"]`) |',
        f"| Max episode steps | {spec.max_episode_steps} |",
        f"| Entry point | `{spec.entry_point}` |",
        f'| Make | `gym.make("{env_id}", split="test")` after `import envs` |',
        "",
        "## Scenarios",
        "",
        "Per scenario: the actions and floats of its own id, which the common space pads.",
        "",
        "| scenario | split | combatants | its own id | own actions | own floats |",
        "|---|---|---|---|---|---|",
    ]
    for split in ("train", "test"):
        for name in split_scenarios(split):
            own = gym.make(envs.env_id(name))
            sc = load_scenario(name)
            out.append(f"| `{name}` | {split} | {len(sc.fighters)} | "
                       f"[`{envs.env_id(name)}`]({page_name(envs.env_id(name))}.md) | "
                       f"{own.action_space.n} | "  # type: ignore[attr-defined]
                       f"{own.observation_space.shape[0]} |")  # type: ignore[index]
            own.close()
    env.close()
    mod = importlib.import_module("envs.mixed")
    out += ["", "## The split and the padding", "", docstring(mod, level=3), "",
            docstring(VtmMixedEnv, drop=HISTORY), "",
            *version_history(envs.VERSION, envs.OBS_VERSION, "mixed")]
    return "\n".join(out)


def pettingzoo_page(module: str, title: str) -> str:
    import envs

    mod = importlib.import_module(module)
    return "\n".join([f"# {title}", "", docstring(mod, drop=HISTORY), "",
                      *version_history(envs.VERSION, envs.OBS_VERSION)])


PETTINGZOO = {
    "environments/parallel.md": ("envs.multi", "VtmParallelEnv (PettingZoo parallel)"),
    "environments/aec.md": ("envs.aec", "VtmAECEnv (PettingZoo AEC)"),
}


def env_pages() -> dict[str, str]:
    import envs

    pages = {f"environments/{page_name(eid)}.md": eid for eid in envs.registered_ids()}
    return pages


def mixed_pages() -> dict[str, str]:
    """The cross-scenario ids' pages (``envs.mixed_ids()``)."""
    import envs

    return {f"environments/{page_name(eid)}.md": eid for eid in envs.mixed_ids()}


# --- policies -------------------------------------------------------------------------


def policies_page() -> str:
    from vtm_sim.policies.registry import describe, names

    out = ["# Policies", "",
           "Every name `vtm-sim policies` lists, generated from the registry at every build: "
           "any of them works wherever a policy is asked for (see [Policies and the "
           "ladder](../policies.md)).", "",
           "| name | how it plays |", "|---|---|"]
    out += [f"| `{name}` | {_cell(describe(name))} |" for name in names()]
    return "\n".join([*out, ""])


# --- the home page and the environments' index -----------------------------------------

README = DOCS.parent / "README.md"
ENV_IDS_MARKER = "<!-- environment ids -->"


def home_page() -> str:
    """The README as the site's home page, its links into docs/ made site links."""
    text = README.read_text(encoding="utf-8")
    return re.sub(r"\]\(docs/", "](", text)


def env_ids_table() -> str:
    import gymnasium as gym

    from vtm_sim.files.scenarios import load_scenario

    lines = ["| id | scenario | combatants |", "|---|---|---|"]
    for path, eid in env_pages().items():
        scenario = load_scenario(gym.spec(eid).kwargs["scenario"])
        sides = " vs ".join(scenario.side_name(s) for s in sorted(scenario.sides)
                            ) or f"{len(scenario.fighters)} combatants"
        lines.append(f"| [`{eid}`]({path.split('/', 1)[1]}) | {scenario.title} | "
                     f"{len(scenario.fighters)}: {_cell(sides)} |")
    for path, eid in mixed_pages().items():
        lines.append(f"| [`{eid}`]({path.split('/', 1)[1]}) | every scenario, one drawn "
                     "per episode (`split=` train, test or all) | 2 to 8: padded |")
    return "\n".join(lines)


# --- the hooks ------------------------------------------------------------------------


def _generated() -> dict[str, str]:
    pages = {path: env_page(eid) for path, eid in env_pages().items()}
    pages.update({path: mixed_page(eid) for path, eid in mixed_pages().items()})
    pages.update({path: pettingzoo_page(*spec) for path, spec in PETTINGZOO.items()})
    pages[GENERATED_REFERENCE["File formats"]] = file_formats_page()
    pages[GENERATED_REFERENCE["Policies"]] = policies_page()
    pages["index.md"] = home_page()
    return pages


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Add the generated pages to the nav's "Environments" and "Reference" sections."""
    for section in config.nav or []:
        if not isinstance(section, dict):
            continue
        for title, items in section.items():
            if title == "Environments" and isinstance(items, list):
                items += [{name: path} for path, (_, name) in PETTINGZOO.items()]
                items += [{eid: path} for path, eid in mixed_pages().items()]
                items += [{eid: path} for path, eid in env_pages().items()]
            if title == "Reference" and isinstance(items, list):
                items += [{name: path} for name, path in GENERATED_REFERENCE.items()]
    return config


def load_commands() -> None:
    """Every ``vtm-sim`` command, loaded and in name order, for the mkdocs-click extension.

    The group loads its commands when named (``vtm_sim.cli.base.LazyGroup``) and the
    extension lists ``group.commands`` when it is not empty, so once this hook has
    imported a command or two it would list only those.
    """
    import click

    from vtm_sim.cli import main

    ctx = click.Context(main, info_name="vtm-sim")
    names = main.list_commands(ctx)
    main.commands = {name: cmd for name in names if (cmd := main.get_command(ctx, name))}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    load_commands()
    for path, content in _generated().items():
        files.append(File.generated(config, path, content=content))
    return files


def on_page_markdown(markdown: str, page: Any, config: MkDocsConfig, files: Files) -> str:
    """The environments' index lists every registered id (generated)."""
    if page.file.src_uri == "environments/index.md":
        if ENV_IDS_MARKER not in markdown:
            raise ValueError(f"docs/environments/index.md: no {ENV_IDS_MARKER} line")
        markdown = markdown.replace(ENV_IDS_MARKER, env_ids_table())
    return markdown
