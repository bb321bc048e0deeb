"""A state file may swap a combatant's stat block (``combatants.NAME.sheet``) and add
combatants (``add``), docs/states.md: the battle starts with them, its log header records
them, and it replays; mistakes are one line naming the file and the key."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from vtm_sim import load_state
from vtm_sim.errors import ConfigError
from vtm_sim.events import EventLog
from vtm_sim.files.replay import replay
from vtm_sim.files.state_files import read_state
from vtm_sim.policies.nearest import NearestEnemyPolicy
from vtm_sim.policies.play import play


def write(tmp_path: Path, text: str, name: str = "state.yaml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


SWAP_AND_ADD = """\
    scenario: duel
    combatants:
      Knife Fighter: {sheet: neonate_brujah, damage: {lethal: 1}}
      Street Thug: {damage: {bashing: 2}}
    add:
      - {sheet: characters/thug.yaml, side: 1, at: [6, 2]}
      - {sheet: ghoul_enforcer, side: 0, at: [-3, 0], prone: true}
    initiative: ["Jax, Brujah Neonate", Bar Brawler, Street Thug, Ghoul Enforcer]
    """


def test_a_swapped_sheet_keeps_side_and_place_and_added_combatants_join(
        tmp_path: Path) -> None:
    loaded = read_state(write(tmp_path, SWAP_AND_ADD))
    cs = loaded.battle.combatants
    assert [c.name for c in cs] == ["Bar Brawler", "Jax, Brujah Neonate", "Street Thug",
                                    "Ghoul Enforcer"]
    jax = cs[1]
    assert (jax.side, jax.x, jax.y) == (1, 4.0, 0.0)  # the Knife Fighter's
    assert jax.stats.kind.value == "vampire" and jax.health.lethal == 1
    thug, ghoul = cs[2], cs[3]
    assert (thug.side, thug.x, thug.y, thug.health.bashing) == (1, 6.0, 2.0, 2)
    assert (ghoul.side, ghoul.x, ghoul.prone) == (0, -3.0, True)


def test_a_swapped_combatant_may_go_by_either_name(tmp_path: Path) -> None:
    p = write(tmp_path, """\
        scenario: duel
        combatants:
          Knife Fighter: {sheet: neonate_brujah}
          Bar Brawler: {aim: {target: Knife Fighter}, wielding: unarmed}
        """)
    with pytest.raises(ConfigError, match="aiming needs a firearm"):
        read_state(p)  # the name resolved: the error is the aim's weapon, not the name
    q = write(tmp_path, """\
        scenario: duel
        combatants:
          Knife Fighter: {sheet: neonate_brujah}
          "Jax, Brujah Neonate": {blood: 3}
        """, "q.yaml")
    with pytest.raises(ConfigError, match="already given"):
        read_state(q)


def test_a_state_with_new_sheets_plays_and_replays(tmp_path: Path) -> None:
    battle = load_state(write(tmp_path, SWAP_AND_ADD), seed=4)
    play(battle, [NearestEnemyPolicy() for _ in battle.combatants])
    log = EventLog.parse(battle.log.jsonl())
    assert replay(log).log.sha256() == battle.log.sha256()


@pytest.mark.parametrize(
    ("text", "key", "needle"),
    [
        ("scenario: duel\ncombatants:\n  Knife Fighter: {sheet: nobody_at_all}\n",
         "combatants.Knife Fighter.sheet", "no file or shipped stat block"),
        ("scenario: duel\ncombatants:\n  Knife Fighter: {sheet: neonate}\n",
         "combatants.Knife Fighter.sheet", "ambiguous"),
        ("scenario: duel\ncombatants:\n  Nobody: {sheet: thug}\n",
         "combatants.Nobody", "no combatant named 'Nobody'"),
        ("scenario: duel\nadd:\n  - {sheet: thug, side: 1, at: [4, 0]}\n",
         "add.0.at", "same spot as Knife Fighter"),
        ("scenario: duel\nadd:\n  - {sheet: thug, side: 9, at: [9, 0]}\n",
         "add.0.side", "less than or equal to 7"),
        ("scenario: duel\nadd:\n  - {sheet: thug, side: 1, at: [9, 0]}\n"
         "initiative: [Bar Brawler, Knife Fighter]\n",
         "initiative", "leaves out Street Thug"),
        ("scenario: dark_ages_skirmish\nadd:\n  - {sheet: shotgunner, side: 1, at: [30, 0]}\n",
         "add.0.sheet", "is a firearm, not allowed under the dark_ages rules"),
        ("scenario: dark_ages_skirmish\ncombatants:\n  Genoese Crossbowman: {sheet: shotgunner}\n",
         "combatants.Genoese Crossbowman.sheet", "is a firearm"),
        ("scenario: duel\nadd:\n" + "  - {sheet: thug, side: 1, at: [N, 5]}\n" * 15,
         "add", "at most 16"),
    ],
)
def test_mistakes_in_new_sheets_are_one_line(tmp_path: Path, text: str, key: str,
                                             needle: str) -> None:
    n = iter(range(100))
    while "[N," in text:
        text = text.replace("[N,", f"[{10 + next(n)},", 1)
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        read_state(p)
    msg = str(info.value)
    assert msg.startswith(f"{p}: {key}"), msg
    assert needle in msg and "\n" not in msg, msg


def test_a_swapped_sheet_is_found_beside_the_state_file(tmp_path: Path) -> None:
    write(tmp_path, "name: Marla\nkind: ghoul\nattributes: {dexterity: 3}\n", "marla.yaml")
    loaded = read_state(write(tmp_path, """\
        scenario: duel
        combatants:
          Bar Brawler: {sheet: marla.yaml, blood: 2}
        """))
    marla = loaded.battle.combatants[0]
    assert (marla.name, marla.blood, marla.side) == ("Marla", 2, 0)
