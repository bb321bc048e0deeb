"""The committed training hyperparameters (experiments/hyperparams/), without torch: every
file validates, every env_kwargs makes the env, and the build under test reads the tree's
tables (a wheel carries them as agents/hyperparams; an install that lost them is refused,
never trained on silent defaults)."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest
import yaml

import envs  # noqa: F401  (registers the ids)
from agents import training
from agents.training import ALGOS, Hyperparams, hyperparams_dir, load_hyperparams
from vtm_sim.errors import ConfigError

TREE = Path(__file__).resolve().parents[2] / "experiments" / "hyperparams"
OVERRIDES = sorted(p for p in TREE.glob("*.yml") if p.stem not in ALGOS)


def table(algo: str) -> dict[str, dict[str, object]]:
    data = yaml.safe_load((TREE / f"{algo}.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("algo", sorted(ALGOS))
def test_the_build_under_test_reads_the_committed_table(algo: str) -> None:
    """Editable or installed (the compiled build is never editable), the table read is the
    tree's: the run that found this used Hyperparams' defaults (ent_coef 0.0) for 0.01."""
    packaged = hyperparams_dir() / f"{algo}.yml"
    assert packaged.read_bytes() == (TREE / f"{algo}.yml").read_bytes()
    for env_id, entry in table(algo).items():
        hp, sources = load_hyperparams(algo, env_id)
        assert sources == [str(packaged)]
        assert hp == Hyperparams(**entry), env_id
    default = table(algo)["default"]
    hp, _ = load_hyperparams(algo, "vtm_sim/NotInTheTable-v6")
    assert hp == Hyperparams(**default)
    assert hp.ent_coef == default.get("ent_coef", Hyperparams().ent_coef)


def test_there_are_override_files() -> None:
    assert {p.name for p in OVERRIDES} >= {"baselines.yml", "baselines_side.yml",
                                          "shipped.yml", "shipped_side.yml"}


@pytest.mark.parametrize("path", OVERRIDES, ids=lambda p: p.name)
def test_every_override_file_validates_and_its_env_kwargs_make_the_env(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    hp, sources = load_hyperparams("maskable-ppo", "vtm_sim/Gunfight-v6", path)
    assert sources[-1] == str(path)
    for key, value in data.items():
        assert getattr(hp, key) == value, key  # the file's keys win over the table's
    for env_id in ("vtm_sim/Duel-v6", "vtm_sim/Gunfight-v6"):
        env = gym.make(env_id, **hp.env_kwargs)
        obs, _ = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        env.close()


def test_a_missing_table_is_refused_not_replaced_by_defaults(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(training, "HYPERPARAMS_DIR", tmp_path)
    with pytest.raises(ConfigError, match=r"maskable-ppo\.yml: missing, expected the "
                       r"maskable-ppo hyperparameters table"):
        load_hyperparams("maskable-ppo", "vtm_sim/Duel-v6")
