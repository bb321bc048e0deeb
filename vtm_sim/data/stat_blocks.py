"""Character stat blocks: YAML in, a validated frozen StatBlock out."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from vtm_sim.core.names import Named, aliases_of, find_named
from vtm_sim.core.sheet import Kind, StatBlock
from vtm_sim.data.config import StrictModel, config_dir, load_yaml, validate
from vtm_sim.data.tables import Tables, load_tables
from vtm_sim.errors import ConfigError

# (Kind and StatBlock live in vtm_sim.core.sheet, compiled with the hot modules)
__all__ = [
    "ABILITIES",
    "ATTRIBUTES",
    "DISCIPLINES",
    "MERITS",
    "TALENTS",
    "Kind",
    "StatBlock",
    "StatBlockSpec",
    "build_stat_block",
    "find_sheet",
    "load_stat_block",
    "shipped_sheets",
]


ATTRIBUTES = (
    "strength", "dexterity", "stamina",
    "charisma", "manipulation", "appearance",
    "perception", "intelligence", "wits",
)
ABILITIES = (
    # talents
    "alertness", "athletics", "awareness", "brawl", "dodge", "empathy", "expression",
    "intimidation", "leadership", "streetwise", "subterfuge",
    # skills
    "animal_ken", "archery", "crafts", "drive", "etiquette", "firearms", "larceny", "melee",
    "performance", "ride", "stealth", "survival",
    # knowledges
    "academics", "computer", "finance", "investigation", "law", "medicine", "occult",
    "politics", "science", "technology",
)
TALENTS = frozenset(ABILITIES[:11])  # ATK-3: unskilled Talents carry no extra difficulty
DISCIPLINES = (
    "animalism", "auspex", "celerity", "chimerstry", "dementation", "dominate", "fortitude",
    "necromancy", "obfuscate", "obtenebration", "potence", "presence", "protean", "quietus",
    "serpentis", "thaumaturgy", "vicissitude",
)
MERITS = (
    "ambidextrous", "catlike_balance", "daredevil", "huge_size", "iron_will",
    "eat_food", "lightning_reflexes",
)


def _check_keys(value: dict[str, int], allowed: tuple[str, ...], what: str) -> dict[str, int]:
    for key in value:
        if key not in allowed:
            raise ValueError(f"unknown {what} {key!r}")
    return value


class StatBlockSpec(StrictModel):
    name: str = Field(min_length=1)
    kind: Kind = Kind.MORTAL
    generation: int | None = Field(default=None, ge=3, le=15)
    attributes: dict[str, int] = Field(default_factory=dict)
    abilities: dict[str, int] = Field(default_factory=dict)
    disciplines: dict[str, int] = Field(default_factory=dict)
    specialties: dict[str, str] = Field(default_factory=dict)
    willpower: int = Field(default=3, ge=0, le=10)
    blood: int | None = Field(default=None, ge=0)
    weapons: list[str] = Field(default_factory=list)
    armor: str | None = None
    merits: list[str] = Field(default_factory=list)
    carrying: float = Field(default=0.0, ge=0, le=2000)  # MOVE-2: pounds of gear
    short: str | None = None
    pronoun: Literal["she", "he", "they", "it"] = "they"

    @field_validator("attributes")
    @classmethod
    def _attrs(cls, v: dict[str, int]) -> dict[str, int]:
        _check_keys(v, ATTRIBUTES, "attribute")
        for k, n in v.items():
            if not 0 <= n <= 10:
                raise ValueError(f"{k} must be 0..10, got {n}")
        return v

    @field_validator("abilities")
    @classmethod
    def _abilities(cls, v: dict[str, int]) -> dict[str, int]:
        _check_keys(v, ABILITIES, "ability")
        for k, n in v.items():
            if not 0 <= n <= 10:
                raise ValueError(f"{k} must be 0..10, got {n}")
        return v

    @field_validator("disciplines")
    @classmethod
    def _disciplines(cls, v: dict[str, int]) -> dict[str, int]:
        _check_keys(v, DISCIPLINES, "discipline")
        for k, n in v.items():
            if not 0 <= n <= 10:
                raise ValueError(f"{k} must be 0..10, got {n}")
        return v

    @field_validator("specialties")
    @classmethod
    def _specialties(cls, v: dict[str, str]) -> dict[str, str]:
        for key in v:
            if key not in ABILITIES and key not in ATTRIBUTES:
                raise ValueError(f"specialty for unknown trait {key!r}")
        return v

    @field_validator("merits")
    @classmethod
    def _merits(cls, v: list[str]) -> list[str]:
        for m in v:
            if m not in MERITS:
                raise ValueError(f"unknown merit {m!r} (known: {', '.join(MERITS)})")
        return v


def build_stat_block(
    spec: StatBlockSpec, source: str, tables: Tables | None = None
) -> StatBlock:
    """Resolve names against the tables and apply the kind's rules (VAMP-1)."""
    tables = tables or load_tables()
    weapons = []
    for i, w in enumerate(spec.weapons):
        if w != "unarmed" and w not in tables.weapons:
            raise ConfigError(
                f"{source}: weapons.{i}: unknown weapon {w!r} (see configs/weapons.yaml)"
            )
        weapons.append(tables.weapon(w))
    armor = None
    if spec.armor is not None:
        if spec.armor not in tables.armor:
            raise ConfigError(
                f"{source}: armor: unknown armor {spec.armor!r} (see configs/armor.yaml)"
            )
        armor = tables.armor[spec.armor]
    if spec.kind is Kind.VAMPIRE:
        gen = spec.generation if spec.generation is not None else 13
        if gen not in tables.generations:
            raise ConfigError(f"{source}: generation: no row {gen} in generations.yaml")
        row = tables.generations[gen]
        pool, per_turn, trait_max = row.blood_pool, row.per_turn, row.trait_max
        blood = row.blood_pool if spec.blood is None else spec.blood
        if blood > pool:
            raise ConfigError(f"{source}: blood: {blood} exceeds generation {gen}'s pool of {pool}")
    else:
        if spec.generation is not None:
            raise ConfigError(f"{source}: generation: only vampires have a generation")
        gen = None
        trait_max = 5
        if spec.kind is Kind.GHOUL:
            pool, per_turn = tables.feeding.ghoul_pool, tables.feeding.ghoul_per_turn
            blood = 0 if spec.blood is None else spec.blood
            if blood > pool:
                raise ConfigError(f"{source}: blood: a ghoul holds at most {pool}, got {blood}")
        else:
            if spec.blood:
                raise ConfigError(f"{source}: blood: mortals have no blood pool to spend")
            for d, n in spec.disciplines.items():
                if n:  # disciplines come from the Blood: vampires and their ghouls only
                    raise ConfigError(
                        f"{source}: disciplines.{d}: a mortal has no disciplines (got {n}; "
                        "only vampires and ghouls have them: kind: ghoul or vampire)")
            pool, per_turn, blood = 0, 0, 0
    return StatBlock(
        spec.name, spec.kind, gen, dict(spec.attributes), dict(spec.abilities),
        dict(spec.disciplines), dict(spec.specialties), spec.willpower, blood, pool, per_turn,
        tuple(weapons), armor, frozenset(spec.merits), source, spec.carrying, trait_max,
        short=spec.short, pronoun=spec.pronoun,
    )


def load_stat_block(path: str | Path, tables: Tables | None = None) -> StatBlock:
    """Load a stat block from YAML, by path or by a shipped sheet's name (``brawler``:
    ``configs/characters/brawler.yaml``); errors name the file and the key."""
    p = find_sheet(path)
    return build_stat_block(validate(StatBlockSpec, load_yaml(p), p), str(p), tables)


def sheet_names() -> list[str]:
    return sorted(q.stem for q in (config_dir() / "characters").glob("*.yaml"))


def shipped_sheets() -> list[tuple[Path, StatBlockSpec]]:
    """Every shipped stat block (``configs/characters/``), its file and its spec, by file
    name."""
    out = []
    for q in sorted((config_dir() / "characters").glob("*.yaml")):
        out.append((q, validate(StatBlockSpec, load_yaml(q), q)))
    return out


def find_sheet(path: str | Path) -> Path:
    """A stat block's file: the path itself, or a shipped sheet by its file name without
    ``.yaml`` (``neonate_brujah``), by its ``name``, its ``short`` name or the name before a
    comma (``Jax`` for "Jax, Brujah Neonate"), or by a unique prefix of any of those,
    whatever the case (:func:`vtm_sim.core.names.find_named`)."""
    p = Path(path)
    if p.exists() or p.suffix in (".yaml", ".yml", ".json") or len(p.parts) > 1:
        return p  # a path: a missing one is reported by load_yaml ("file not found")
    shipped = config_dir() / "characters" / f"{p.name}.yaml"
    if shipped.exists():
        return shipped
    sheets = shipped_sheets()
    found = find_named(str(path), [
        Named(q.stem, (spec.name, *aliases_of(spec.name, spec.short))) for q, spec in sheets
    ], "file or shipped stat block", "stat block")
    return sheets[found][0]
