"""The attack chain: attack roll, defense, damage, soak, health (ATK, DEF, DMG, SOAK).

Pools are computed by small pure functions (:func:`plan_attack`,
:func:`defense_pool`, :func:`soak_pool`); :func:`resolve_attack` rolls them in
order, records every roll as an event and applies the result. Situational
modifiers that need the battlefield (cover, flanking, darkness, ...) are
worked out by the battle and passed in as a :class:`Situation`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from vtm_sim.core.choices import CalledShot, DefenseKind
from vtm_sim.core.dice import DiceSource, Roll, SpecialtyRule, roll
from vtm_sim.data.rules import RuleSet
from vtm_sim.data.stat_blocks import TALENTS
from vtm_sim.data.tables import (
    DAMAGE_TYPES,
    HAND_USES,
    UNARMED,
    DamageType,
    Effect,
    Maneuver,
    Need,
    Tables,
    Weapon,
    WeaponClass,
    WeaponUse,
)
from vtm_sim.events import (
    ActionEvent,
    ArmorEvent,
    DamageEvent,
    EventLog,
    HitEvent,
    MissEvent,
    RollEvent,
    StatusEvent,
    StunEvent,
)
from vtm_sim.mechanics.combatant import Combatant

DiceFor = Callable[[str], DiceSource]
# MAN-10: an effect that may take the damage's place: (defender, attacker, successes,
# log) -> whether it did (vtm_sim/engine/effects.py: EFFECTS)
InsteadOfDamage = Callable[[Combatant, Combatant, int, EventLog], bool]
BASE_DIFFICULTY: Final = 6  # ATK-4
SPRAY_DODGE: Final = 1  # RNG-6: dodging autofire spray is +1 difficulty
POINT_BLANK_YARDS: Final = 2.0  # RNG-2
POINT_BLANK_DIFFICULTY: Final = 4
MAX_RANGE_DIFFICULTY: Final = 2  # RNG-2: +2 between short and twice the range
SHOOTING: Final = frozenset({WeaponClass.FIREARM, WeaponClass.BOW, WeaponClass.CROSSBOW})
ARCHERY: Final = frozenset({WeaponClass.BOW, WeaponClass.CROSSBOW})  # ATK-2: rolled with Archery
# read for every option an attack list weighs: module constants (see vtm_sim.core.symbol)
_FIREARM: Final = WeaponClass.FIREARM
_THROWN: Final = WeaponClass.THROWN
_CLINCH: Final = Effect.CLINCH

# MAN-11: claws are natural weapons (Std damage Strength + 1)
FERAL_CLAWS: Final = Weapon("feral claws", WeaponClass.UNARMED, DamageType.AGGRAVATED,
                            0, 1, 0, 1, 0, False, 0, "P")
BONE_SPURS: Final = Weapon("bone spurs", WeaponClass.UNARMED, DamageType.LETHAL, 0, 1, 0, 1, 0,
                    False, 0, "P")


# Built on the hot path: not frozen (a frozen dataclass costs several times more to
# build) and with its own __init__ (mypyc compiles that one; the generated one stays
# Python); read-only by convention.
@dataclass(slots=True, init=False)
class Situation:
    """Modifiers from the battlefield and the characters' states."""

    dice: int = 0  # ATK-7 flank/rear, CPX-1 blind target, CPX-3 held target, RNG-7 aim
    difficulty: int = 0  # ATK-8, ATK-10, RNG-1 cover, CPX-1, MAN-5 off balance, ...
    auto_hit: bool = False  # CPX-3: a completely immobilized target
    cover: int = 0  # RNG-1: the target's cover, part of ``difficulty`` (RNG-11)

    def __init__(
        self, dice: int = 0, difficulty: int = 0, auto_hit: bool = False, cover: int = 0,
    ) -> None:
        self.dice = dice
        self.difficulty = difficulty
        self.auto_hit = auto_hit
        self.cover = cover


# Built on the hot path: not frozen (a frozen dataclass costs several times more to
# build) and with its own __init__ (mypyc compiles that one; the generated one stays
# Python); read-only by convention.
@dataclass(slots=True, init=False)
class AttackPlan:
    """Everything about an attack that is known before a die is rolled."""

    maneuver: str
    weapon: Weapon
    ability: str
    pool: int
    difficulty: int
    specialty: bool
    damage_base: int
    damage_auto: int  # VAMP-5: Potence successes on Strength-based damage
    damage_type: DamageType
    extra_successes_add: bool  # ATK-5 / ATK-6
    close: bool
    rounds: int  # bullets (or thrown weapons) spent
    effect: Effect | None = None
    area: float = 0.0  # RNG-6: spray width in yards
    auto_hit: bool = False
    called: CalledShot | None = None
    offhand: bool = False
    no_damage: bool = False  # hold, kiss

    def __init__(
        self, maneuver: str, weapon: Weapon, ability: str, pool: int, difficulty: int,
        specialty: bool, damage_base: int, damage_auto: int, damage_type: DamageType,
        extra_successes_add: bool, close: bool, rounds: int, effect: Effect | None = None,
        area: float = 0.0, auto_hit: bool = False, called: CalledShot | None = None,
        offhand: bool = False, no_damage: bool = False,
    ) -> None:
        self.maneuver = maneuver
        self.weapon = weapon
        self.ability = ability
        self.pool = pool
        self.difficulty = difficulty
        self.specialty = specialty
        self.damage_base = damage_base
        self.damage_auto = damage_auto
        self.damage_type = damage_type
        self.extra_successes_add = extra_successes_add
        self.close = close
        self.rounds = rounds
        self.effect = effect
        self.area = area
        self.auto_hit = auto_hit
        self.called = called
        self.offhand = offhand
        self.no_damage = no_damage

    def harder(self, by: int) -> AttackPlan:
        """A copy ``by`` more difficult (DEF-9's passive defense): a new plan, as a compiled
        plan cannot be copied with :func:`copy.copy`."""
        return AttackPlan(
            self.maneuver, self.weapon, self.ability, self.pool, self.difficulty + by,
            self.specialty, self.damage_base, self.damage_auto, self.damage_type,
            self.extra_successes_add, self.close, self.rounds, self.effect, self.area,
            self.auto_hit, self.called, self.offhand, self.no_damage,
        )

    @property
    def ranged(self) -> bool:
        return not self.close


# Built on the hot path: not frozen (a frozen dataclass costs several times more to
# build) and with its own __init__ (mypyc compiles that one; the generated one stays
# Python); read-only by convention.
@dataclass(slots=True, init=False)
class AttackOutcome:
    attack: Roll
    defense: Roll | None
    damage: Roll | None
    soak: Roll | None
    net: int
    levels: int
    damage_type: DamageType
    stunned: bool
    disarmed: bool = False

    def __init__(
        self, attack: Roll, defense: Roll | None, damage: Roll | None, soak: Roll | None, net: int,
        levels: int, damage_type: DamageType, stunned: bool, disarmed: bool = False,
    ) -> None:
        self.attack = attack
        self.defense = defense
        self.damage = damage
        self.soak = soak
        self.net = net
        self.levels = levels
        self.damage_type = damage_type
        self.stunned = stunned
        self.disarmed = disarmed

    @property
    def hit(self) -> bool:
        return self.net >= 1


def hand_weapon(attacker: Combatant, offhand: bool) -> tuple[Weapon, int]:
    """The weapon in the main (or off) hand and its index (-1: none)."""
    idx = attacker.offhand if offhand else attacker.wielding
    if idx < 0 or attacker.lost[idx]:
        return UNARMED, -1
    return attacker.stats.weapons[idx], idx


def claws_of(attacker: Combatant) -> Weapon | None:
    """MAN-11: Feral Claws (Protean 2) or Bone Craft spurs (Vicissitude 3)."""
    d = attacker.stats.discipline
    if d("protean") >= 2 and (attacker.claws_out or attacker.blood > 0):
        return FERAL_CLAWS
    if d("vicissitude") >= 3:
        return BONE_SPURS
    return None


def _autofire(w: Weapon) -> bool:
    return w.cls is WeaponClass.FIREARM and w.autofire


# What each kind of maneuver is made with (``weapon`` in configs/maneuvers.yaml), from
# the attacker and the weapon in the hand it uses; None: it cannot be made now.
WeaponOf = Callable[[Combatant, Weapon], Weapon | None]
WEAPON_OF: Final[dict[WeaponUse, WeaponOf]] = {
    WeaponUse.UNARMED: lambda c, w: UNARMED,
    WeaponUse.MELEE: lambda c, w: w if w.cls is WeaponClass.MELEE else None,
    WeaponUse.SHOOTING: lambda c, w: w if w.cls in SHOOTING else None,
    WeaponUse.AUTOFIRE: lambda c, w: w if _autofire(w) else None,
    WeaponUse.THROWN: lambda c, w: w if w.cls is WeaponClass.THROWN else None,
    WeaponUse.CLAWS: lambda c, w: claws_of(c),  # MAN-11
    # MAN-4: a staff or chain sweeps with Melee and its own damage, else bare legs do
    WeaponUse.TRIP: lambda c, w: w if w.cls is WeaponClass.MELEE and w.trips else UNARMED,
}
# What each need asks of the attacker and the weapon in the hand it uses (``needs``).
NeedCheck = Callable[[Combatant, Weapon], bool]
NEEDS: Final[dict[Need, NeedCheck]] = {
    # MAN-8: asked of each target (vtm_sim/engine/options.py: Options._may_bite), not here
    Need.GRAPPLE: lambda c, w: True,
    Need.VAMPIRE: lambda c, w: c.vampire,
    Need.CLAWS: lambda c, w: claws_of(c) is not None,  # MAN-11
    Need.MELEE_WEAPON: lambda c, w: w.cls is WeaponClass.MELEE,
    Need.AUTOFIRE: lambda c, w: _autofire(w),  # RNG-3/5/6
}


def unmet_need(attacker: Combatant, spec: Maneuver, offhand: bool = False) -> Need | None:
    """The first of the maneuver's needs the attacker does not meet now (None: all met)."""
    w, _ = hand_weapon(attacker, offhand)
    for need in spec.needs:
        if not NEEDS[need](attacker, w):
            return need
    return None


def maneuver_weapon(attacker: Combatant, spec: Maneuver,
                    offhand: bool = False) -> Weapon | None:
    """The weapon a maneuver uses, or None if the attacker cannot perform it."""
    w, idx = hand_weapon(attacker, offhand)
    if idx >= 0 and attacker.jammed[idx] and spec.weapon in HAND_USES:
        return None  # CPX-6: a jammed (or unstrung) weapon must be cleared first
    for need in spec.needs:
        if not NEEDS[need](attacker, w):
            return None
    return WEAPON_OF[spec.weapon](attacker, w)


def range_modifier(weapon: Weapon, distance: float) -> int | None:
    """RNG-2: the difficulty change for a ranged shot, None when out of range.

    Point blank sets the base to 4 (a -2 change); beyond the listed range up
    to twice it is +2; beyond twice it no shot is possible.
    """
    if distance <= POINT_BLANK_YARDS:
        return POINT_BLANK_DIFFICULTY - BASE_DIFFICULTY
    if distance <= weapon.range:
        return 0
    if distance <= 2 * weapon.range:
        return MAX_RANGE_DIFFICULTY
    return None


def reach_of(spec: Maneuver) -> float:
    """ATK-1: 1 yard unarmed, 2 yards with a melee weapon."""
    return float(spec.reach if spec.reach is not None else 1)


def extra_successes_add(weapon: Weapon, rules: RuleSet) -> bool:
    """ATK-6: whether successes beyond the first add damage dice."""
    cls = weapon.cls
    if cls is _THROWN:
        return rules.thrown_extra_successes_add
    if cls is _FIREARM:
        return rules.firearms_extra_successes_add
    if cls in ARCHERY:
        return rules.bows_extra_successes_add
    return True


def effective_damage_type(weapon_type: DamageType, weapon: Weapon, target: Combatant,
                          rules: RuleSet) -> DamageType:
    """DMG-4: firearm damage counts as bashing against vampires (variant)."""
    if (
        weapon.cls is WeaponClass.FIREARM
        and target.vampire
        and rules.firearms_bashing_vs_vampires
        and weapon_type is DamageType.LETHAL
    ):
        return DamageType.BASHING
    return weapon_type


AttackNumbers = tuple[int, int, str, int]  # pool, difficulty, ability, rounds


def ammo_needed(weapon: Weapon, spec: Maneuver, ammo: int) -> int | None:
    """RNG-3/5/6/10: rounds a maneuver spends, None if the magazine cannot serve it."""
    if weapon.cls is WeaponClass.THROWN:
        return 1 if ammo >= 1 else None
    if not weapon.cls.ranged:
        return 0
    if spec.magazine:  # RNG-5/6: empties the magazine; full auto only when half full
        if ammo <= 0 or (spec.half_magazine and 2 * ammo < weapon.magazine):
            return None
        return ammo
    need = max(1, spec.rounds)
    return need if ammo >= need else None


def rate_cost(weapon: Weapon, spec: Maneuver, rules: RuleSet) -> int:
    """RNG-4: how much of the weapon's rate of fire a maneuver uses this turn.

    ``shots``: each attack is one shot. ``rounds`` (000): each round counts, and
    autofire, which fires more than any rate, takes the weapon's whole turn.
    """
    if rules.rate_of_fire_counts == "shots":
        return 1
    if spec.magazine:
        return weapon.rate
    return max(1, spec.rounds)


def attack_numbers(
    attacker: Combatant,
    spec: Maneuver,
    weapon: Weapon,
    rules: RuleSet,
    sit: Situation,
    dist: float,
    *,
    penalty: int = 0,
    difficulty_mod: int = 0,
    offhand: bool = False,
) -> AttackNumbers | None:
    """The cheap part of a plan: (pool, difficulty, ability, rounds), or None.

    Everything that decides whether the attack is possible at all, without
    the damage side: legality checks in option lists use this alone.
    """
    difficulty = BASE_DIFFICULTY + spec.difficulty + difficulty_mod + sit.difficulty
    rounds = 0
    cls = weapon.cls
    if not spec.close:
        if cls is _FIREARM and not rules.firearms_allowed:
            return None
        idx = attacker.offhand if offhand else attacker.wielding
        need = ammo_needed(weapon, spec, attacker.ammo[idx])
        if need is None:
            return None  # RNG-10: empty (or too empty for autofire)
        rounds = need
        mod = range_modifier(weapon, dist)
        if mod is None:
            return None
        difficulty += mod
    ability = spec.ability
    if cls in ARCHERY:
        ability = "archery"  # ATK-2
    elif weapon.trips:
        ability = "melee"  # MAN-4: a staff or chain sweeps with Melee
    stats = attacker.stats
    level = stats.abilities.get(ability, 0)
    if level == 0 and ability not in TALENTS:
        difficulty += rules.unskilled_skill_difficulty  # ATK-3 (dark_ages variant)
    if offhand and "ambidextrous" not in stats.merits:
        difficulty += 1  # RNG-9
    pool = attacker.attr(spec.attribute) + level + spec.accuracy + sit.dice  # ATK-3
    pool -= attacker.penalty + penalty
    if spec.attribute == "dexterity":
        pool -= attacker.armor_penalty  # SOAK-4
    return pool, difficulty, ability, rounds


def plan_attack(
    attacker: Combatant,
    target: Combatant,
    maneuver: str,
    tables: Tables,
    rules: RuleSet,
    *,
    penalty: int = 0,
    difficulty_mod: int = 0,
    distance: float | None = None,
    situation: Situation | None = None,
    called: CalledShot | None = None,
    offhand: bool = False,
    weapon: Weapon | None = None,
    numbers: AttackNumbers | None = None,
) -> AttackPlan | None:
    """Compute an attack's pool and difficulty, or None if it is not possible.

    Args:
        penalty: dice lost to multiple actions (ACT-1) and extra movement (ACT-4).
        difficulty_mod: difficulty from outside the maneuver (ATK-8, ...).
        distance: yards to the target when the roll is made (default: now).
        situation: battlefield modifiers (cover, flanking, darkness, aim, ...).
        called: a called shot (RNG-8).
        offhand: the attack is made with the off-hand weapon (RNG-9).
        weapon: the maneuver's weapon when the caller already knows it.
        numbers: ``attack_numbers`` of exactly these arguments, when the caller has them.
    """
    spec = tables.maneuvers.get(maneuver)
    if spec is None:
        return None
    if weapon is None:
        weapon = maneuver_weapon(attacker, spec, offhand)
        if weapon is None:
            return None
    if offhand and (attacker.offhand < 0 or not spec.offhand):
        return None  # RNG-9: the maneuver's row says which hands may make it
    if called is not None and not spec.called_shot:
        return None  # RNG-8 (none with full auto or spray)
    sit = situation or Situation()
    dist = attacker.distance(target) if distance is None else distance
    if numbers is None:
        numbers = attack_numbers(attacker, spec, weapon, rules, sit, dist,
                                 penalty=penalty, difficulty_mod=difficulty_mod, offhand=offhand)
    if numbers is None:
        return None
    pool, difficulty, ability, rounds = numbers
    stats = attacker.stats
    damage_bonus = 0
    if called is not None:  # RNG-8
        row = getattr(tables.called_shots[rules.called_shot_table], called.value)
        difficulty += row[0]
        damage_bonus = row[1]
        if sit.cover and rules.called_shot_pierces and row[0] >= sit.cover:
            difficulty -= sit.cover  # RNG-11: at the part that shows, the called shot's own
    dmg = spec.damage
    damage_auto = 0
    if dmg.weapon and not weapon.strength_based:
        base = weapon.damage + dmg.bonus
    else:
        bonus = (weapon.strength_bonus or 0) if (dmg.weapon or weapon.trips) else 0
        base = attacker.attr("strength") + bonus + dmg.bonus
        if weapon.cls is not _THROWN:
            # VAMP-5 (Std): melee, brawl and claws
            damage_auto = stats.disciplines.get("potence", 0)
    if dmg.type in ("weapon", "claws") or weapon.trips:  # MAN-4: a trip weapon's own type
        dtype = weapon.damage_type
    elif dmg.type == "none":
        dtype = DamageType.BASHING
    else:
        dtype = DAMAGE_TYPES[dmg.type]
    adds = extra_successes_add(weapon, rules)
    if spec.effect is _CLINCH and rules.clinch_first_damage == "strength":
        adds = False  # MAN-6 (000): the first turn rolls Strength dice
    return AttackPlan(
        maneuver, weapon, ability, pool, difficulty, ability in stats.specialties,
        base + damage_bonus, damage_auto, dtype, adds,
        spec.close, rounds, spec.effect, spec.area, sit.auto_hit, called,
        offhand, spec.no_damage,
    )


def legal_defenses(defender: Combatant, plan: AttackPlan, *, room: bool = True) -> list[
    DefenseKind
]:
    """Which defenses the rules allow against this attack (DEF-4..6, DEF-8)."""
    out = [DefenseKind.DODGE] if room else []  # DEF-5 / DEF-8
    if plan.close:
        # DEF-4: block bashing only, unless armored or with Fortitude
        if plan.damage_type is DamageType.BASHING or defender.armor_rating > 0 or (
            defender.stats.disciplines.get("fortitude", 0) > 0
        ):
            out.append(DefenseKind.BLOCK)
        w, _ = hand_weapon(defender, False)
        if w.cls is WeaponClass.MELEE:  # DEF-6
            out.append(DefenseKind.PARRY)
    return out


DEFENSE_ABILITY: Final = {
    DefenseKind.DODGE: "dodge",
    DefenseKind.BLOCK: "brawl",
    DefenseKind.PARRY: "melee",
}


def defense_pool(defender: Combatant, kind: DefenseKind, penalty: int) -> int:
    """Dexterity + Dodge / Brawl / Melee, less wounds, armor and ``penalty``."""
    s = defender.stats
    pool = defender.attr("dexterity") + s.abilities.get(DEFENSE_ABILITY[kind], 0)
    return pool - defender.penalty - defender.armor_penalty - penalty


def pierces(plan: AttackPlan, defender: Combatant, rules: RuleSet) -> bool:
    """RNG-11: a called shot at a part the defender's armor leaves bare ignores it."""
    called = plan.called
    if called is None or not rules.called_shot_pierces:
        return False
    armor = defender.stats.armor
    return armor is not None and called.value not in armor.covers


def soak_pool(defender: Combatant, dtype: DamageType, rules: RuleSet, *,
              elemental: bool = False, pierced: bool = False) -> int:
    """SOAK-1..4, VAMP-4: Stamina, Fortitude and armor by damage type.

    ``elemental`` marks fire and sunlight (aggravated): armor does not help,
    and Stamina joins Fortitude only under ``fortitude_soaks_fire_with_stamina``;
    ``pierced``: a called shot at a bare part (RNG-11), armor does not help either.
    """
    s = defender.stats
    fort = s.disciplines.get("fortitude", 0)
    pool = fort
    if dtype is DamageType.BASHING or (dtype is DamageType.LETHAL and defender.vampire):
        pool += defender.attr("stamina")  # SOAK-2
    elif (
        dtype is DamageType.AGGRAVATED and elemental and fort > 0
        and rules.fortitude_soaks_fire_with_stamina
    ):
        pool += defender.attr("stamina")  # SOAK-3 (004's reading)
    if not (elemental or pierced):
        pool += defender.armor_rating  # SOAK-4
    return pool


def stun_threshold(defender: Combatant) -> int:
    """DMG-6: Stamina for mortals, Stamina + 2 for vampires."""
    st = defender.attr("stamina")
    return st + 2 if defender.stats.kind.supernatural else st


def roll_attack(plan: AttackPlan, attacker: Combatant, rules: RuleSet, dice_for: DiceFor,
                log: EventLog, *, willpower: bool = False) -> Roll:
    """The attack roll alone (DICE-*, ATK-4)."""
    spec_rule: SpecialtyRule | None = rules.specialty
    return _roll(log, attacker.id, "attack", plan.pool, plan.difficulty, dice_for,
                 specialty=spec_rule if plan.specialty else None, willpower=willpower)


def roll_defense(defender: Combatant, defense: DefenseKind, penalty: int, difficulty: int,
                 rules: RuleSet, dice_for: DiceFor, log: EventLog) -> Roll:
    ability = DEFENSE_ABILITY[defense]
    spec_rule = rules.specialty if ability in defender.stats.specialties else None
    return _roll(log, defender.id, defense.value, defense_pool(defender, defense, penalty),
                 difficulty, dice_for, specialty=spec_rule)


# Built once per attack (per target of a spray) on the hot path: not frozen (a frozen
# dataclass costs several times more to build) and with its own __init__ (mypyc compiles
# that one; the generated one stays Python); read-only by convention.
@dataclass(slots=True, init=False)
class AttackChain:
    """One attack against one defender, as :func:`resolve_attack` rolls it.

    ``defense_penalty`` and ``defense_difficulty`` are the defense roll's dice lost
    and difficulty; ``turn`` is the battle's (a stun lasts to the next). With
    ``willpower`` the attack roll spends a Willpower point (DICE-8); ``elemental``
    overrides the weapon's (fire and sunlight, SOAK-3). ``attack_roll``/``successes``
    let autofire spray hand each target its share of one roll; with ``spray`` the share
    left after the target's dodge is added to the damage pool whole (RNG-6, as 000
    words it). ``instead_of_damage`` is the plan's effect when it may take the
    damage's place (MAN-10; ``vtm_sim.engine.effects.instead_of_damage(plan)``).
    """

    plan: AttackPlan
    attacker: Combatant
    defender: Combatant
    defense: DefenseKind
    defense_penalty: int
    defense_difficulty: int
    rules: RuleSet
    dice_for: DiceFor
    log: EventLog
    turn: int
    willpower: bool = False
    elemental: bool | None = None
    attack_roll: Roll | None = None
    successes: int | None = None
    spray: bool = False
    instead_of_damage: InsteadOfDamage | None = None

    def __init__(
        self, plan: AttackPlan, attacker: Combatant, defender: Combatant, defense: DefenseKind,
        defense_penalty: int, defense_difficulty: int, rules: RuleSet, dice_for: DiceFor,
        log: EventLog, turn: int, *, willpower: bool = False, elemental: bool | None = None,
        attack_roll: Roll | None = None, successes: int | None = None, spray: bool = False,
        instead_of_damage: InsteadOfDamage | None = None,
    ) -> None:
        self.plan = plan
        self.attacker = attacker
        self.defender = defender
        self.defense = defense
        self.defense_penalty = defense_penalty
        self.defense_difficulty = defense_difficulty
        self.rules = rules
        self.dice_for = dice_for
        self.log = log
        self.turn = turn
        self.willpower = willpower
        self.elemental = elemental
        self.attack_roll = attack_roll
        self.successes = successes
        self.spray = spray
        self.instead_of_damage = instead_of_damage


def resolve_attack(chain: AttackChain) -> AttackOutcome:
    """Roll an attack through the whole chain and apply it to the defender.

    The attack roll (unless ``chain.attack_roll`` is given), the defense roll, then
    damage and soak (:class:`AttackChain` says what each field does). The effect
    that may take the damage's place (MAN-10) is given the net attack successes or
    the damage successes, as ``disarm_successes`` says.
    """
    plan = chain.plan
    attacker = chain.attacker
    defender = chain.defender
    defense = chain.defense
    rules = chain.rules
    dice_for = chain.dice_for
    log = chain.log
    turn = chain.turn
    attack_roll = chain.attack_roll
    successes = chain.successes
    a = attack_roll if attack_roll is not None else roll_attack(
        plan, attacker, rules, dice_for, log, willpower=chain.willpower)
    got = a.successes if successes is None else successes
    if plan.auto_hit:
        got = max(1, got)  # CPX-3: cannot miss a completely immobilized target
    d_roll: Roll | None = None
    net = got
    parry_counter = defense is DefenseKind.PARRY and plan.weapon.cls is WeaponClass.UNARMED
    if defense is not DefenseKind.NONE and (got > 0 or parry_counter):  # DEF-6 needs the roll
        d_roll = roll_defense(defender, defense, chain.defense_penalty,
                              chain.defense_difficulty, rules, dice_for, log)
        net -= d_roll.successes  # DEF-1
        if (
            defense is DefenseKind.PARRY and plan.weapon.cls is WeaponClass.UNARMED
            and hand_weapon(defender, False)[0].damage_type is not DamageType.BASHING
            and net < 0
        ):
            _parry_counter(defender, attacker, -net, rules, dice_for, log, turn)
    dtype = effective_damage_type(plan.damage_type, plan.weapon, defender, rules)
    elemental = chain.elemental
    if elemental is None:
        elemental = plan.weapon.elemental
    if net < 1 or got == 0:
        log.emit(MissEvent(attacker.id, defender.id, max(net, 0)))
        return AttackOutcome(a, d_roll, None, None, max(net, 0), 0, dtype, False)
    log.emit(HitEvent(attacker.id, defender.id, net))
    instead = chain.instead_of_damage  # MAN-10: disarm_successes says which successes count
    if instead is not None and rules.disarm_successes == "attack" and instead(
        defender, attacker, net, log
    ):
        return AttackOutcome(a, d_roll, None, None, net, 0, dtype, False, disarmed=True)
    if plan.no_damage:
        return AttackOutcome(a, d_roll, None, None, net, 0, dtype, False)
    # ATK-5: each success beyond the first adds a die (RNG-6 spray: the whole share)
    extra = net if chain.spray else (net - 1 if plan.extra_successes_add else 0)
    dmg_pool = max(1, plan.damage_base + extra)  # DMG-2, DMG-3
    dmg, dealt = roll_damage(attacker.id, dmg_pool, plan.damage_auto, dice_for, log)
    if instead is not None and rules.disarm_successes == "damage" and instead(
        defender, attacker, dealt, log
    ):
        return AttackOutcome(a, d_roll, dmg, None, net, 0, dtype, False, disarmed=True)
    return soak_damage(defender, dmg, dealt, dtype, rules, dice_for, log, turn, a, d_roll, net,
                       elemental, pierced=pierces(plan, defender, rules))


def disarm(defender: Combatant, attacker: Combatant, successes: int, log: EventLog) -> bool:
    """MAN-10: more successes than the defender's Strength take its weapon (no damage)."""
    w, idx = hand_weapon(defender, False)
    if idx < 0 or successes <= defender.attr("strength"):
        return False
    defender.lost[idx] = True
    defender.wielding = -1
    log.emit(ActionEvent(defender.id, "disarmed", {"weapon": w.name, "by": attacker.id}))
    return True


def apply_damage(
    source: int, defender: Combatant, dmg_pool: int, auto: int, dtype: DamageType,
    rules: RuleSet, dice_for: DiceFor, log: EventLog, turn: int, a: Roll | None = None,
    d_roll: Roll | None = None, net: int = 1, elemental: bool = False,
) -> AttackOutcome:
    """Roll damage, soak it (SOAK-*) and mark the health track (DMG-*)."""
    dmg, dealt = roll_damage(source, dmg_pool, auto, dice_for, log)
    return soak_damage(defender, dmg, dealt, dtype, rules, dice_for, log, turn, a, d_roll, net,
                       elemental)


def roll_damage(source: int, dmg_pool: int, auto: int, dice_for: DiceFor,
                log: EventLog) -> tuple[Roll, int]:
    """The damage roll (DMG-1) and its successes with Potence's (VAMP-5)."""
    dmg = _roll(log, source, "damage", dmg_pool, BASE_DIFFICULTY, dice_for, damage=True,
                auto=auto)  # VAMP-5: Potence successes on the damage roll
    return dmg, dmg.successes + auto


def soak_damage(
    defender: Combatant, dmg: Roll, dealt: int, dtype: DamageType, rules: RuleSet,
    dice_for: DiceFor, log: EventLog, turn: int, a: Roll | None = None,
    d_roll: Roll | None = None, net: int = 1, elemental: bool = False, *,
    pierced: bool = False,
) -> AttackOutcome:
    """Soak ``dealt`` damage successes (SOAK-*) and mark the health track (DMG-*);
    ``pierced``: a called shot at a part the armor leaves bare (RNG-11)."""
    soak = None
    levels = dealt
    if dealt > 0:
        spool = soak_pool(defender, dtype, rules, elemental=elemental, pierced=pierced)
        soak = _roll(log, defender.id, "soak", spool, BASE_DIFFICULTY, dice_for, damage=True)
        levels = max(0, dealt - soak.successes)  # SOAK-1
        if defender.armor_rating and not (elemental or pierced) and (
            dealt >= 2 * defender.armor_rating  # SOAK-5 ("в два раза больше": read as >=)
        ):
            defender.armor_rating = 0  # SOAK-5
            defender.armor_penalty = 0
            log.emit(ArmorEvent(defender.id, True))
    unsoaked = levels
    if dtype is DamageType.BASHING and defender.vampire:
        levels //= 2  # DMG-5
    stun = unsoaked if rules.stun_counts == "unsoaked" else levels  # DMG-6
    stunned = apply_levels(defender, levels, dtype, log, turn, stun=stun)
    if a is None:
        a = Roll(0, BASE_DIFFICULTY, (), 0, False)
    return AttackOutcome(a, d_roll, dmg, soak, net, levels, dtype, stunned)


def apply_levels(defender: Combatant, levels: int, dtype: DamageType, log: EventLog,
                 turn: int, *, stun: int | None = None) -> bool:
    """Mark health levels, then stun (DMG-6) and status changes (DMG-8).

    ``stun`` is the count compared with the stun threshold (default: ``levels``).
    """
    before = defender.health.status
    defender.health.take(levels, dtype)
    log.emit(DamageEvent(defender.id, levels, dtype, defender.health.marks(),
                         defender.health.level_name))
    stunned = (levels if stun is None else stun) > stun_threshold(defender) and defender.active
    if stunned:
        # DMG-6, CPX-2: stunned again in a turn already lost, it loses this one and the next
        defender.stunned_from = turn if defender.stunned(turn) else -1
        defender.stunned_turn = turn + 1
        log.emit(StunEvent(defender.id, turn + 1))
    if defender.health.status is not before:
        log.emit(StatusEvent(defender.id, defender.health.status))
    return stunned


def weapon_damage(c: Combatant, w: Weapon) -> tuple[int, int]:
    """A weapon's damage pool and Potence successes in ``c``'s hands."""
    if w.strength_based:
        return c.attr("strength") + (w.strength_bonus or 0), c.stats.discipline("potence")
    return w.damage, 0


def _parry_counter(defender: Combatant, attacker: Combatant, extra: int, rules: RuleSet,
                   dice_for: DiceFor, log: EventLog, turn: int) -> None:
    """DEF-6: a lethal weapon parrying an unarmed attack hurts the attacker.

    The parrying weapon's damage plus one die per success beyond the attacker's.
    """
    w, _ = hand_weapon(defender, False)
    base, auto = weapon_damage(defender, w)
    log.emit(HitEvent(defender.id, attacker.id, extra, parry=True))
    apply_damage(defender.id, attacker, base + extra, auto,
                 effective_damage_type(w.damage_type, w, attacker, rules), rules, dice_for,
                 log, turn)


def _roll(
    log: EventLog, who: int, what: str, pool: int, difficulty: int, dice_for: DiceFor, *,
    specialty: SpecialtyRule | None = None, willpower: bool = False, damage: bool = False,
    auto: int = 0,
) -> Roll:
    r = roll(pool, difficulty, dice_for(what), specialty=specialty, damage=damage,
             willpower=willpower)
    log_roll(log, who, what, r, auto)
    return r


def log_roll(log: EventLog, who: int, what: str, r: Roll, auto: int = 0) -> None:
    """Emit the roll event; ``auto``: automatic successes on a damage roll (VAMP-5)."""
    log.emit(RollEvent(who, what, r.pool, r.difficulty, r.faces, r.successes, r.botch,
                       r.willpower, r.specialty, auto))
