"""Benchmark `vtm-sim suggest` as a Storyteller uses it: the default answer's wall time.

Usage: python experiments/bench_suggest.py [--cases all|states|scenarios] [--time S]
       [--json] [--vtm-sim PATH]

Cases: every shipped scenario at turn 1 (its start) and at turn 3 (a state file
``turn: 3``, everyone unhurt where the scenario puts them), and the hand-written
three- and four-person states of ``experiments/states/`` (a clinch, an empty gun,
a hunter at range from a vampire, a staked vampire with its ghoul, an ambush). For
each, the NPC is the first combatant able to act on side 0 (the states name theirs)
and two answers are timed, each as the user gets it, by running the command in a
new process: the turn plan (``vtm-sim suggest FILE --npc NAME``, the default) and
one decision (``--decision act``). Reported per answer: the wall time from the
process's start to its exit (the 2-second bound of issue 32 is on this), the
simulated fights it played in that time, and the options it raced.

The reference, measured in the same run: a CartPole step (gymnasium), so that
``fights_per_kstep`` (simulated fights per thousand CartPole steps' time) compares
across machines and loads. Run it with the interpreter of the build to measure
(``--vtm-sim``: the command of that build, e.g. ``.venv-compiled/bin/vtm-sim``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATES = {  # file -> the NPC asked about
    "clinch.yaml": "Jax, Brujah Neonate",
    "empty_gun.yaml": "Detective Ortiz",
    "vampire_at_range.yaml": "Brother Tomas, Zealot",
    "staked.yaml": "Ghoul Enforcer",
    "ambush.yaml": "Jax, Brujah Neonate",
}


def cartpole_step_us() -> float:
    import gymnasium as gym

    env = gym.make("CartPole-v1")
    env.reset(seed=0)
    n = 20000
    t = time.perf_counter()
    for i in range(n):
        _, _, term, trunc, _ = env.step(i % 2)
        if term or trunc:
            env.reset()
    return (time.perf_counter() - t) / n * 1e6


def cases(which: str, tmp: Path) -> list[tuple[str, str, str, int]]:
    """(label, file or scenario, npc, combatants)."""
    sys.path.insert(0, str(ROOT))
    from vtm_sim.files.scenarios import list_scenarios, load_scenario

    out: list[tuple[str, str, str, int]] = []
    if which in ("all", "scenarios"):
        for name in list_scenarios():
            sc = load_scenario(name)
            b = sc.battle(seed=0)
            npc = next(c.name for c in b.combatants if c.side == 0)
            same = [c.name for c in b.combatants].count(npc)
            label = npc if same == 1 else f"{npc}#1"
            n = len(b.combatants)
            out.append((f"{name} turn 1", name, label, n))
            state = tmp / f"{name}_turn3.yaml"
            state.write_text(f"scenario: {name}\nturn: 3\n", encoding="utf-8")
            out.append((f"{name} turn 3", str(state), label, n))
    if which in ("all", "states"):
        import yaml

        for f, npc in STATES.items():
            path = ROOT / "experiments" / "states" / f
            spec = yaml.safe_load(path.read_text(encoding="utf-8"))
            sc = load_scenario(spec["scenario"])
            down = sum(1 for v in (spec.get("combatants") or {}).values()
                       if (v.get("damage") or {}).get("lethal", 0) >= 7)
            out.append((f"state {f}", str(path), npc, len(sc.fighters) - down))
    return out


def answer(cmd: list[str]) -> dict[str, object]:
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        return {"wall_s": round(wall, 3), "error": r.stderr.strip() or r.stdout.strip()}
    data = json.loads(r.stdout)
    return {"wall_s": round(wall, 3), "fights": data["rollouts"],
            "options": len(data["options"]), "recommended": data["recommended"]["action"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", choices=["all", "states", "scenarios"], default="all")
    ap.add_argument("--time", type=float, default=2.0)
    ap.add_argument("--vtm-sim", default=shutil.which("vtm-sim") or "vtm-sim")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    cart = cartpole_step_us()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for label, src, npc, n in cases(args.cases, Path(d)):
            base = [args.vtm_sim, "suggest", src, "--npc", npc, "--time", str(args.time),
                    "--json"]
            for mode, extra in (("turn", []), ("act", ["--decision", "act"])):
                got = answer(base + extra)
                fights = got.get("fights")
                wall = float(got["wall_s"])  # type: ignore[arg-type]
                if isinstance(fights, int):
                    got["fights_per_kstep"] = round(fights / (wall / (cart * 1e-3)), 2)
                rows.append({"case": label, "combatants": n, "mode": mode, **got})
                if not args.json:
                    print(f"{label:34} {n:>2} {mode:5} {wall:6.2f} s  "
                          f"{got.get('fights', '-'):>5} fights  {got.get('options', '-'):>3} "
                          f"options  {got.get('error') or got.get('recommended')}", flush=True)
    summary = {"cartpole_step_us": round(cart, 2), "time": args.time, "answers": rows,
               "max_wall_s_4_or_fewer": max((float(r["wall_s"]) for r in rows  # type: ignore[arg-type]
                                             if int(r["combatants"]) <= 4), default=None)}  # type: ignore[call-overload]
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(f"CartPole step: {summary['cartpole_step_us']} us; slowest answer with four "
              f"combatants or fewer: {summary['max_wall_s_4_or_fewer']} s")


if __name__ == "__main__":
    main()
