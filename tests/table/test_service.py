"""The table service (vtm_sim.table): steps persist, replay exactly, undo, fork, export;
bad requests are one-line errors; a stale version is a conflict carrying the current one."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from vtm_sim.engine.battle import Battle
from vtm_sim.errors import ConfigError
from vtm_sim.table import (
    FacesNeeded,
    TableError,
    TableExists,
    TableService,
    UnknownTable,
    VersionConflict,
)
from vtm_sim.table.errors import TableCorrupt
from vtm_sim.table.service import parse_faces, short_names

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "foundry"


@pytest.fixture
def svc(tmp_path: Path) -> TableService:
    s = TableService(tmp_path / "t.sqlite3")
    s.new("duel", scenario="duel", pcs=["Knife Fighter"], seed=3)
    return s


def play(s: TableService, name: str, n: int) -> None:
    for _ in range(n):
        if s.show(name)["pending"] is None:
            return
        s.choose(name, 0)


def attack_pending(s: TableService, name: str) -> None:
    """Walk the duel to the Knife Fighter's first action (declarations first)."""
    while True:
        p = s.show(name)["pending"]
        assert p is not None
        if p["decision"] == "act" and p["actor"] == "Knife Fighter":
            return
        s.choose(name, 0)


def test_show_has_the_contract_keys(svc: TableService) -> None:
    shown = svc.show("duel")
    for key in ("name", "turn", "version", "pending", "combatants"):
        assert key in shown
    assert shown["version"] == 0 and shown["turn"] == 1
    assert set(shown["pending"]) >= {"actor", "decision", "options"}
    assert all(isinstance(o, str) for o in shown["pending"]["options"])
    assert len(set(shown["pending"]["options"])) == len(shown["pending"]["options"])
    for c in shown["combatants"]:
        assert {"name", "health", "status", "blood", "willpower", "weapons", "conditions",
                "at"} <= set(c)
    json.dumps(shown)  # plain JSON


def test_steps_persist_and_a_new_service_replays_them(svc: TableService, tmp_path: Path) -> None:
    play(svc, "duel", 8)
    before = svc.show("duel")
    log = svc.log("duel")
    again = TableService(tmp_path / "t.sqlite3")
    assert again.show("duel") == before
    assert again.log("duel") == log
    assert again.verify("duel")["version"] == 8


def test_undo_then_the_same_choices_give_a_byte_identical_log(svc: TableService) -> None:
    attack_pending(svc, "duel")
    v = svc.show("duel")["version"]
    svc.choose("duel", "Strike Bar Brawler with the knife")
    play(svc, "duel", 12)
    log = svc.log("duel")
    labels = [s["label"] for s in svc.steps("duel")][v:]
    svc.undo("duel", to=v)
    assert svc.show("duel")["version"] == v
    for label in labels:
        svc.choose("duel", label)
    assert svc.log("duel") == log


def test_undo_one_step_and_nothing_to_undo(tmp_path: Path) -> None:
    s = TableService(tmp_path / "u.sqlite3")
    s.new("t", scenario="duel")
    with pytest.raises(TableError, match="nothing to undo"):
        s.undo("t")
    s.choose("t", 0)
    assert s.undo("t")["version"] == 0


def test_stale_version_is_a_conflict_carrying_the_current_one(svc: TableService,
                                                              tmp_path: Path) -> None:
    other = TableService(tmp_path / "t.sqlite3")  # a second tab, or another process
    svc.choose("duel", 0, version=0)
    with pytest.raises(VersionConflict) as info:
        other.choose("duel", 0, version=0)
    assert info.value.current == 1
    assert "\n" not in str(info.value) and "version 1" in str(info.value)
    assert other.show("duel")["version"] == 1  # the fresh state
    with pytest.raises(VersionConflict):
        other.undo("duel", version=0)


def test_bad_requests_are_one_line_errors(svc: TableService) -> None:
    cases = [
        (lambda: svc.choose("duel", "no such thing"), TableError, "not an option"),
        (lambda: svc.choose("duel", 99), TableError, "index from 0"),
        (lambda: svc.choose("duel", 0, faces=[11]), TableError, "not a d10 face"),
        (lambda: svc.choose("duel", 0, faces=[0]), TableError, "not a d10 face"),
        (lambda: svc.choose("duel", 0, faces=[3, 4]), TableError, "rolls no dice"),
        (lambda: svc.show("nope"), UnknownTable, "no such table"),
        (lambda: svc.new("duel", scenario="duel"), TableExists, "already"),
        (lambda: svc.new("x", scenario="duel", state="y.yaml"), TableError, "exactly one"),
        (lambda: svc.new("x", scenario="no_such"), ConfigError, "unknown"),
    ]
    for call, kind, words in cases:
        with pytest.raises(kind, match=words) as info:
            call()
        assert "\n" not in str(info.value)
    assert svc.show("duel")["version"] == 0  # nothing changed


def test_faces_entered_are_used_and_their_count_checked(svc: TableService) -> None:
    attack_pending(svc, "duel")
    svc.choose("duel", "Strike Bar Brawler with the knife")  # the defense comes next
    p = svc.show("duel")["pending"]
    assert p["decision"] == "defend"
    with pytest.raises(TableError, match=r"roll 1 of this step \(Knife Fighter's attack, "
                       r"\d+ dice\): 2 faces given, expected \d+"):
        svc.choose("duel", "Take the blow", faces=[[10, 10]])
    pool = next(r for r in _trial_rolls(svc) if r["what"] == "attack")["dice"]
    out = svc.choose("duel", "Take the blow", faces=[[10] * pool])
    first = out["step"]["rolls"][0]
    assert first == {"who": "Knife Fighter", "who_id": 1, "what": "attack", "dice": pool,
                     "faces": [10] * pool, "entered": True}
    assert all(not r["entered"] for r in out["step"]["rolls"][1:])
    # the replay feeds the same faces
    assert svc.verify("duel")["version"] == out["step"]["version"]


def _trial_rolls(s: TableService) -> list[dict[str, object]]:
    """The rolls the pending step makes, taken in a fork that is then deleted."""
    s.fork("duel", "trial")
    try:
        return list(s.choose("trial", "Take the blow")["step"]["rolls"])
    finally:
        s.delete("trial")


def test_dice_setting_asks_for_the_pcs_rolls(svc: TableService) -> None:
    attack_pending(svc, "duel")  # (the initiative rolls before it are the tool's)
    svc.set_dice("duel", "pcs")
    svc.choose("duel", "Strike Bar Brawler with the knife")
    with pytest.raises(FacesNeeded) as info:
        svc.choose("duel", "Take the blow")
    roll = info.value.roll
    assert roll["index"] == 0 and roll["who"] == "Knife Fighter" and roll["what"] == "attack"
    faces = [[4] * roll["dice"]]  # a miss: no damage roll follows
    out = svc.choose("duel", "Take the blow", faces=faces)
    assert out["step"]["rolls"][0]["entered"]


def test_fork_goes_on_apart_and_export_loads(svc: TableService, tmp_path: Path) -> None:
    play(svc, "duel", 5)
    svc.fork("duel", "what-if")
    play(svc, "what-if", 3)
    assert svc.show("duel")["version"] == 5 and svc.show("what-if")["version"] == 8
    names = [t["name"] for t in svc.tables()]
    assert names == ["duel", "what-if"]
    state = svc.export("duel")
    b = Battle.from_state(json.loads(json.dumps(state)))
    assert b.turn == svc.show("duel")["turn"]
    assert b.pending is not None
    svc.delete("what-if")
    with pytest.raises(UnknownTable):
        svc.show("what-if")


def test_the_exported_state_plays_on_as_the_table_would(svc: TableService,
                                                        tmp_path: Path) -> None:
    play(svc, "duel", 4)
    b = Battle.from_state(svc.export("duel"))
    svc.fork("duel", "on")
    play(svc, "on", 6)
    for _ in range(6):
        assert b.pending is not None
        b.choose(b.pending.options[0])
    assert b.log.jsonl() == svc.log("on")


def test_auto_plays_the_npcs_until_a_pc_decides(svc: TableService) -> None:
    out = svc.auto("duel")
    assert out["steps"], out
    assert all(s["actor"] == "Bar Brawler" for s in out["steps"])
    p = out["table"]["pending"]
    assert p is None or p["player"] == "pc"
    svc.set_player("duel", "Knife Fighter", "npc", policy="nearest")
    out = svc.auto("duel", max_steps=5)
    assert len(out["steps"]) == 5 or out["table"]["pending"] is None
    assert any(s["by"] == "policy:nearest" for s in out["steps"])


def test_suggest_names_a_pending_option(svc: TableService) -> None:
    s = svc.suggest("duel", seconds=None, rollouts=8)
    options = svc.show("duel")["pending"]["options"]
    assert s["label"] == options[s["index"]]
    assert s["actor"] == "Bar Brawler" and s["reason"]
    svc.choose("duel", s["index"], by="suggestion")
    assert svc.steps("duel")[0]["by"] == "suggestion"


def test_a_changed_step_is_caught_on_replay(svc: TableService, tmp_path: Path) -> None:
    play(svc, "duel", 6)
    db = sqlite3.connect(tmp_path / "t.sqlite3")
    db.execute("UPDATE steps SET events = events || ' ' WHERE version = 3")
    db.commit()
    db.close()
    with pytest.raises(TableCorrupt, match="step 3"):
        TableService(tmp_path / "t.sqlite3").show("duel")


def test_start_from_a_state_file_and_imported_sheets(tmp_path: Path) -> None:
    from vtm_sim.files.foundry import convert_actor, dump_yaml, read_actor

    s = TableService(tmp_path / "s.sqlite3")
    shown = s.new("st", state="experiments/states/clinch.yaml")
    assert shown["pending"] is not None
    paths = {}
    for who in ("vampire", "mortal"):
        got = convert_actor(read_actor(FIXTURES / f"{who}.json"), source=who)
        (tmp_path / f"{who}.yaml").write_text(dump_yaml(got.sheet))
        (tmp_path / f"{who}.dmg.yaml").write_text(dump_yaml(got.standing))
        paths[who] = tmp_path / f"{who}.yaml"
    shown = s.new("imp", sheets=[str(paths["vampire"])], foes=[str(paths["mortal"])],
                  damage=[tmp_path / "vampire.dmg.yaml"], pcs=["Det. Sarah Okafor"])
    vey = shown["combatants"][0]
    assert vey["name"] == "Marcus Vey" and vey["damage"]["lethal"] == 2
    assert vey["willpower"] == 4


def test_faces_text_and_short_names() -> None:
    assert parse_faces("8 7 3/10,2") == [[8, 7, 3], [10, 2]]
    assert parse_faces("0,1") == [[10, 1]]
    with pytest.raises(TableError):
        parse_faces("8,x")
    with pytest.raises(TableError):
        parse_faces("8//3")
    shorts = short_names(["Punch Bar Brawler", "Punch Bar Brawler (called shot)", "Flee"])
    assert shorts == ["punch-bar-brawler", "punch-bar-brawler-called", "flee"]
    assert len(set(short_names(["Do it", "Do it"]))) == 2


def test_entered_faces_go_to_the_pcs_rolls_only(svc: TableService) -> None:
    """With ``pcs``, the NPC's dodge in between is the tool's: the entered faces are the
    PC's attack and damage, asked for one after the other."""
    attack_pending(svc, "duel")  # (the initiative rolls before it are the tool's)
    svc.set_dice("duel", "pcs")
    svc.choose("duel", "Strike Bar Brawler with the knife")
    rolls: list[list[int]] = []
    asked = []
    while True:
        try:
            out = svc.choose("duel", "Dodge, abandoning the declared action (spend 1 Willpower)",
                             faces=rolls or None)
            break
        except FacesNeeded as exc:
            asked.append((exc.roll["index"], exc.roll["what"]))
            rolls = rolls[: exc.roll["index"]] + [[10] * exc.roll["dice"]]
    assert asked[:2] == [(0, "attack"), (1, "damage")]
    got = [(r["who"], r["what"], r["entered"]) for r in out["step"]["rolls"]]
    assert got[:3] == [("Knife Fighter", "attack", True), ("Bar Brawler", "dodge", False),
                       ("Knife Fighter", "damage", True)]
    assert all(not entered for who, _what, entered in got if who == "Bar Brawler")
    log = svc.log("duel")
    assert svc.verify("duel")["version"] == out["step"]["version"]
    assert svc.log("duel") == log


def test_threads_sharing_a_service_take_turns(svc: TableService) -> None:
    """Four requests on one version at once (a web server's threads): one step is
    taken, the others get the conflict with the version it made."""
    import threading

    results: list[object] = []

    def go() -> None:
        try:
            results.append(svc.choose("duel", 0, version=0)["step"]["version"])
        except VersionConflict as exc:
            results.append(exc)

    threads = [threading.Thread(target=go) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(1) == 1
    assert all(isinstance(r, VersionConflict) and r.current == 1 for r in results if r != 1)


def test_an_exported_table_starts_a_new_one(svc: TableService, tmp_path: Path) -> None:
    play(svc, "duel", 7)
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(svc.export("duel")))
    shown = svc.new("again", state=str(path), pcs=["Knife Fighter"])
    before = svc.show("duel")
    assert shown["pending"] == before["pending"] and shown["turn"] == before["turn"]
    assert [c["track"] for c in shown["combatants"]] == [c["track"] for c in
                                                         before["combatants"]]
    svc.fork("duel", "twin")
    play(svc, "twin", 5)
    play(svc, "again", 5)  # the same dice stream goes on in both
    tail = [s["rolls"] for s in svc.steps("twin")][-5:]
    assert [s["rolls"] for s in svc.steps("again")] == tail


def test_uploads_start_a_table_without_any_path(svc: TableService) -> None:
    """A front end given uploads passes data: a stat block, its damage, a state."""
    from vtm_sim.files.foundry import convert_actor, read_actor

    got = convert_actor(read_actor(FIXTURES / "ghoul.json"))
    shown = svc.new("up", sheets=[got.sheet], foes=["thug"], damage=[got.standing])
    tommy = shown["combatants"][0]
    assert tommy["name"] == "Tommy Kowalski" and tommy["damage"]["bashing"] == 1
    assert tommy["blood"] == 3
    again = svc.new("up2", state=svc.export("duel"))
    assert again["pending"] == svc.show("duel")["pending"]
    hand = svc.new("up3", state={"scenario": "duel", "turn": 2,
                                 "combatants": {"Bar Brawler": {"damage": {"lethal": 2}}}})
    assert hand["turn"] == 2 and hand["combatants"][0]["damage"]["lethal"] == 2
    with pytest.raises(ConfigError, match="strength"):
        svc.new("bad", sheets=[{"name": "x", "attributes": {"strength": 99}}], foes=["thug"])


def test_an_undo_and_another_step_elsewhere_is_seen(svc: TableService, tmp_path: Path) -> None:
    """Another process undoes and takes another option: the version is the same again,
    the table is not; this service reads the new one (the revision tells them apart)."""
    svc.choose("duel", 0)
    other = TableService(tmp_path / "t.sqlite3")
    other.undo("duel")
    other.choose("duel", "Full defense")
    shown = svc.show("duel")
    assert shown["version"] == 1
    assert svc.steps("duel")[0]["label"].startswith("Full defense")
    svc.choose("duel", 0)
    assert TableService(tmp_path / "t.sqlite3").verify("duel")["version"] == 2


def test_without_a_path_the_database_is_in_the_user_data_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from vtm_sim.table import default_db

    if sys.platform != "linux":
        pytest.skip("XDG_DATA_HOME is how Linux names the folder")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_db() == tmp_path / "data" / "vtm-sim" / "tables.sqlite3"
    with TableService() as s:
        s.new("here", scenario="duel")
    assert default_db().is_file()


def test_auto_stops_at_a_roll_to_enter_and_proposes_the_npcs_pick(svc: TableService) -> None:
    attack_pending(svc, "duel")  # (the initiative rolls before it are the tool's)
    svc.set_dice("duel", "pcs")
    svc.choose("duel", "Strike Bar Brawler with the knife")
    out = svc.auto("duel")
    assert out["steps"] == [] and out["stopped"].startswith("faces needed")
    prop = out["proposed"]
    assert prop["roll"]["who"] == "Knife Fighter" and prop["roll"]["what"] == "attack"
    assert prop["label"] == svc.options("duel")[prop["index"]]["label"]
    rolls = [[2] * prop["roll"]["dice"]]
    while True:
        try:
            done = svc.choose("duel", prop["index"], faces=rolls, by=prop["by"])
            break
        except FacesNeeded as exc:  # the PC's next rolls: its initiative, say
            rolls = rolls[: exc.roll["index"]] + [[5] * exc.roll["dice"]]
    assert done["step"]["rolls"][0]["entered"] and done["step"]["by"] == "policy:tactician"
