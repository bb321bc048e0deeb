"""The tactician NPC chooses by exact odds and says why (issue 2's odds in use)."""

from __future__ import annotations

import pytest

from vtm_sim.core.choices import Action, ActionKind, DecisionKind
from vtm_sim.core.dice import ScriptedDice
from vtm_sim.data.stat_blocks import StatBlockSpec, build_stat_block
from vtm_sim.engine.battle import Battle, Fighter
from vtm_sim.files.scenarios import list_scenarios, load_scenario
from vtm_sim.mechanics.odds import attack_odds
from vtm_sim.policies.play import play
from vtm_sim.policies.tactician import TacticianPolicy, estimate


def knife_vs_brawler() -> Battle:
    knife = build_stat_block(
        StatBlockSpec(
            name="Knife",
            attributes={"strength": 3, "dexterity": 3},
            abilities={"brawl": 1, "melee": 3},
            weapons=["knife"],
        ),
        "t",
    )
    brawler = build_stat_block(
        StatBlockSpec(name="Brawler", attributes={"stamina": 3}, abilities={"brawl": 2}), "t"
    )
    # initiative: knife rolls 10, brawler 1; then plenty of dice
    b = Battle(
        [Fighter(knife, 0, 0.0, 0.0), Fighter(brawler, 1, 1.0, 0.0)],
        dice=ScriptedDice([10, 1] + [6] * 400),
    )
    while b.pending is not None and not (
        b.pending.kind is DecisionKind.ACT and b.pending.actor == 0
    ):
        b.choose(b.pending.options[0])
    return b


def test_DICE_1_estimate_is_the_exact_attack_odds() -> None:
    """The tactician's numbers are attack_odds' numbers for the same pools."""
    b = knife_vs_brawler()
    me = b.combatants[0]
    action = Action(ActionKind.ATTACK, "weapon_strike", 1)
    plan = b.plan(0, action)
    assert plan is not None
    est = estimate(b, me, action, plan)
    # the brawler still has its declared action: it would dodge (Dex 1 + Dodge 0 = 1 die);
    # a knife is lethal, which a mortal cannot soak (SOAK-2)
    dist = attack_odds(
        attack_pool=plan.pool,
        attack_difficulty=plan.difficulty,
        defense_pool=1,
        damage_base=plan.damage_base,
    )
    assert est.expected_levels == pytest.approx(sum(k * p for k, p in enumerate(dist)))
    assert est.p_hit == pytest.approx(1 - dist[0])


def test_DMG_2_tactician_takes_the_attack_with_the_most_expected_damage() -> None:
    """With a knife in hand against a mortal, the weapon strike (Str + 1 lethal, unsoaked)
    beats a punch or kick (Str bashing, soaked by Stamina)."""
    b = knife_vs_brawler()
    pol = TacticianPolicy()
    d = b.pending
    assert d is not None
    choice = pol.choose(b, d)
    assert isinstance(choice, Action) and choice.maneuver == "weapon_strike"
    values = {
        o.maneuver: estimate(b, b.combatants[0], o, p).value
        for o in d.options
        if isinstance(o, Action)
        and o.kind is ActionKind.ATTACK
        and o.called is None
        and not o.offhand
        and (p := b.plan(0, o)) is not None
    }
    assert values["weapon_strike"] == max(values.values())
    assert "to hit" in pol.explain() and "expected" in pol.explain()


@pytest.mark.parametrize("name", list_scenarios())
def test_tactician_plays_every_scenario(name: str) -> None:
    sc = load_scenario(name)
    for seed in range(3):
        b = play(sc.battle(seed=seed), [TacticianPolicy() for _ in sc.fighters])
        assert b.over


def test_DEF_1_tactic_card_lists_attacks_with_exact_odds() -> None:
    """The card's numbers are attack_odds' for the pools it shows, against the
    defender's best defense (DEF-1), and its best row has the most expected levels."""
    from vtm_sim.analysis.cards import card_lines, tactic_card
    from vtm_sim.data.rules import load_rules
    from vtm_sim.data.stat_blocks import load_stat_block

    knife = load_stat_block("configs/characters/knife_fighter.yaml")
    brawler = load_stat_block("configs/characters/brawler.yaml")
    card = tactic_card(knife, brawler, distance=1.0, rules=load_rules("v20"))
    rows = {r.maneuver: r for r in card.rows}
    strike = rows["weapon_strike"]
    assert (strike.pool, strike.difficulty, strike.defense) == (6, 6, "dodge")
    dist = attack_odds(
        attack_pool=6,
        attack_difficulty=6,
        defense_pool=strike.defense_pool,
        damage_base=strike.damage_pool,
        soak_pool=strike.soak_pool,
    )
    assert strike.distribution == pytest.approx(dist)
    assert card.best is not None
    assert card.best.expected_levels == max(r.expected_levels for r in card.rows)
    text = "\n".join(card_lines(card))
    assert "Best:" in text and "weapon strike" in text
    far = tactic_card(knife, brawler, distance=500.0, rules=load_rules("v20"))
    assert far.rows == () and any("no attack" in line for line in card_lines(far))


def test_tactician_declares_by_exact_odds_and_beats_nearest() -> None:
    """It weighs several actions, Celerity, Willpower and full defense by the levels
    each is expected to deal or prevent, and so plays differently from nearest."""
    from vtm_sim.files.scenarios import load_scenario
    from vtm_sim.policies.nearest import NearestEnemyPolicy
    from vtm_sim.policies.play import play
    from vtm_sim.policies.tactician import TacticianPolicy

    sc = load_scenario("gunfight")
    score = 0.0
    for seed in range(20):
        for seat in (0, 1):
            pols = [TacticianPolicy() if f.side == seat else NearestEnemyPolicy()
                    for f in sc.fighters]
            b = play(sc.battle(seed=seed), pols)
            score += 1.0 if b.winner == seat else (0.5 if b.winner is None else 0.0)
    assert score / 40 >= 0.7
    duel = load_scenario("duel")
    differ = sum(
        play(duel.battle(seed=s), [TacticianPolicy(), TacticianPolicy()]).log.jsonl()
        != play(duel.battle(seed=s), [NearestEnemyPolicy(), NearestEnemyPolicy()]).log.jsonl()
        for s in range(10)
    )
    assert differ >= 8


def _duel_choices(policy: TacticianPolicy, seed: int) -> list[object]:
    """The Bar Brawler's choices in a duel against the tactician's Knife Fighter."""
    b = load_scenario("duel").battle(seed=seed)
    mine: list[object] = []
    other = TacticianPolicy()
    while b.pending is not None:
        d = b.pending
        c = (policy if d.actor == 0 else other).choose(b, d)
        assert c in d.options
        if d.actor == 0:
            mine.append(c)
        b.choose(c)
    return mine


def test_MAN_6_a_grappling_tactician_clinches_the_blade_with_willpower() -> None:
    """grapple=True: the bare-handed Brawler declares one action with Willpower and
    clinches the Knife Fighter (MAN-6); the plain tactician never tries a clinch."""
    from vtm_sim.core.choices import Declaration

    clinched = False
    for seed in range(5):
        picks = _duel_choices(TacticianPolicy(grapple=True), seed)
        first = picks[0]
        assert isinstance(first, Declaration) and first.actions == 1 and first.willpower
        clinched |= any(isinstance(c, Action) and c.maneuver == "clinch" for c in picks)
        plain = _duel_choices(TacticianPolicy(), seed)
        assert not any(isinstance(c, Action) and c.maneuver == "clinch" for c in plain)
    assert clinched


def test_RNG_8_a_calling_tactician_weighs_called_shots_by_their_exact_odds() -> None:
    """With ``called`` (the planner's prior) a called shot is one more attack weighed by
    exact odds, taken when its expected value is the best; the plain tactician calls only
    a stake's heart shot, so its gunfight play does not change."""
    from vtm_sim.core.choices import CalledShot

    plain, calling = TacticianPolicy(), TacticianPolicy(called=True)
    called_picks = plain_called = decisions = 0
    for seed in range(3):
        b = load_scenario("gunfight").battle(seed=seed)
        while b.pending is not None:
            d = b.pending
            if d.kind is DecisionKind.ACT:
                me = b.combatants[d.actor]
                acts = [o for o in d.options if isinstance(o, Action)]
                mine = TacticianPolicy.best_attack(b, me, acts, called=True)
                theirs = TacticianPolicy.best_attack(b, me, acts)
                if mine is not None and theirs is not None:
                    decisions += 1
                    assert mine[0] >= theirs[0]  # the uncalled shots are among its options
                    if mine[1].called is not None:
                        called_picks += 1
                        assert mine[1].called in set(CalledShot)
                        plan = b.plan(me.id, mine[1])
                        assert plan is not None
                        assert estimate(b, me, mine[1], plan).value == mine[0]
                    plain_called += theirs[1].called is not None
                    pick = calling.choose(b, d)
                    assert pick in d.options
            b.choose(plain.choose(b, d))
    assert decisions > 10
    assert called_picks > 0  # the gunfight's pistols do aim at vital spots
    assert plain_called == 0
