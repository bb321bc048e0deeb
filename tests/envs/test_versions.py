"""Versioned ids: every id at envs.VERSION with its observation layout in the spec, the
old -v0 names refused in one line naming the current id, a Version History for every
version, and models of another layout refused naming both."""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import asdict
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import yaml

import envs
from agents.learned import LearnedAgent, load_agent
from agents.model_info import ModelInfo
from agents.numpy_policy import write_policy
from agents.registered import POLICY_DIR
from envs.env import VtmEnv
from vtm_sim.data.formats import OBS_VERSION
from vtm_sim.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
HISTORY = yaml.safe_load((ROOT / "docs" / "environments" / "history.yaml").read_text())


def test_every_id_is_at_the_current_version_with_its_layout_in_the_spec() -> None:
    ours = [i for i in gym.registry if i.startswith(f"{envs.NAMESPACE}/")
            and not i.endswith(f"-v{envs.LEGACY_VERSION}")]  # the legacy names: below
    assert sorted(ours) == sorted([*envs.registered_ids(), *envs.mixed_ids()])
    for eid in ours:
        spec = gym.spec(eid)
        assert eid.endswith(f"-v{envs.VERSION}") and spec.version == envs.VERSION
        assert spec.kwargs["obs_version"] == OBS_VERSION
    assert envs.registered_ids()[0] == envs.env_id("duel") == f"vtm_sim/Duel-v{envs.VERSION}"
    assert gym.make(envs.env_id("duel")).metadata["obs_version"] == OBS_VERSION


@pytest.mark.parametrize("legacy", ["vtm_sim/Duel-v0", "vtm_sim/BarBrawl-v0",
                                    "envs:vtm_sim/Duel-v0"])
def test_the_legacy_v0_ids_still_make_the_current_env(legacy: str) -> None:
    """Scripts and checks written before the versions use ``-v0`` on default arguments:
    it makes the current env (Gymnasium says it is out of date), check_env passes."""
    from gymnasium.utils.env_checker import check_env

    name = legacy.removeprefix("envs:").rsplit("-", 1)[0]
    env = gym.make(legacy)
    assert env.spec is not None and env.spec.kwargs["obs_version"] == OBS_VERSION
    check_env(env.unwrapped)
    assert envs.current_id(legacy.removeprefix("envs:")) == f"{name}-v{envs.VERSION}"


@pytest.mark.parametrize("old", ["vtm_sim/Duel-v4", "vtm_sim/BarBrawl-v3"])
def test_an_older_id_fails_in_one_line_naming_the_current_one(old: str) -> None:
    name = old.removeprefix("envs:").rsplit("-", 1)[0]
    with pytest.raises(gym.error.DeprecatedEnv) as err, pytest.warns(DeprecationWarning):
        gym.make(old)
    text = str(err.value)
    assert "\n" not in text and f"`{name}-v{envs.VERSION}`" in text
    assert envs.current_id(old.removeprefix("envs:")) == f"{name}-v{envs.VERSION}"
    assert envs.current_id("vtm_sim/Nothing-v0") is None and envs.current_id("?") is None


def test_train_refuses_an_older_id_naming_the_current_one() -> None:
    from agents.training import env_scenario

    with pytest.raises(ConfigError, match=r"^--env vtm_sim/Duel-v4: an older version of "
                                          rf"vtm_sim/Duel-v{envs.VERSION}"):
        env_scenario("vtm_sim/Duel-v4")
    assert env_scenario("vtm_sim/Duel-v0") == "duel"  # the legacy name: the current env
    assert env_scenario(envs.env_id("gunfight")) == "gunfight"


def test_the_cli_default_env_is_the_current_duel() -> None:
    from vtm_sim.cli.training import DEFAULT_ENV

    assert envs.env_id("duel") == DEFAULT_ENV


def test_another_obs_version_is_refused_by_the_env() -> None:
    with pytest.raises(ValueError, match=f"obs_version 4: this code encodes observation "
                                         f"layout {OBS_VERSION} only"):
        gym.make(envs.env_id("duel"), obs_version=4)


def test_pettingzoo_names_carry_the_version() -> None:
    pytest.importorskip("pettingzoo")
    from envs.aec import VtmAECEnv
    from envs.multi import VtmParallelEnv

    assert VtmParallelEnv.metadata["name"] == f"vtm_sim_parallel_v{envs.VERSION}"
    assert VtmAECEnv.metadata["name"] == f"vtm_sim_aec_v{envs.VERSION}"
    assert VtmParallelEnv.metadata["obs_version"] == OBS_VERSION
    assert VtmAECEnv.metadata["obs_version"] == OBS_VERSION


def _source_doc(module_name: str, class_name: str | None = None) -> str:
    """A docstring read from the module's source: the compiled build (mypyc) keeps no
    docstrings, but ships the ``.py`` beside its extension."""
    import ast
    import sys
    from pathlib import Path

    module = sys.modules[module_name]
    path = Path(module.__file__ or "")
    source = path if path.suffix == ".py" else path.parent / (module_name.rsplit(".", 1)[-1]
                                                              + ".py")
    tree = ast.parse(source.read_text(encoding="utf-8"))
    if class_name is None:
        return ast.get_docstring(tree) or ""
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    return ast.get_docstring(node) or ""


def test_every_version_has_its_history_in_the_docstrings_and_the_docs() -> None:
    assert set(HISTORY["env"]) == set(range(envs.VERSION + 1))
    assert OBS_VERSION in HISTORY["observation"]
    doc = inspect.getdoc(VtmEnv) or _source_doc(VtmEnv.__module__, VtmEnv.__name__)
    section = doc.split("## Version History", 1)[1]
    assert re.findall(r"^- v(\d+):", section, flags=re.M) == [
        str(v) for v in range(envs.VERSION, -1, -1)]
    pytest.importorskip("pettingzoo")
    from envs import aec, multi

    for module in (aec, multi):
        text = module.__doc__ or _source_doc(module.__name__)
        assert "## Version History" in text
        assert f"_v{envs.VERSION}``" in text


def test_shipped_policies_are_on_the_current_version_and_load() -> None:
    """Re-exported to layout 6 (experiments/reexport_v6.py): their metadata names the
    current id and layout."""
    for path in sorted(POLICY_DIR.glob("*.npz")):
        info = load_agent(path).info
        assert info.obs_version == OBS_VERSION
        assert info.env_id == envs.env_id(info.scenario) == envs.current_id(info.env_id)


def test_a_model_of_another_layout_fails_in_one_line_naming_both(tmp_path: Path) -> None:
    info = ModelInfo("MaskablePPO", "vtm_sim/Duel-v0", "duel", 0, 2, "flat", 4, 0)
    npz = write_policy(tmp_path / "old.npz", [(np.zeros((4, 3)), np.zeros(4))], "tanh", info)
    want = (f"trained on vtm_sim/Duel-v0 with observation layout 2, but this code is "
            f"vtm_sim/Duel-v{envs.VERSION} with layout {OBS_VERSION}: retrain the model")
    for path in (npz, tmp_path / "old.zip"):
        (tmp_path / "old.json").write_text(json.dumps(asdict(info)))
        with pytest.raises(ValueError) as err:
            load_agent(path) if path.suffix == ".npz" else LearnedAgent.load(path)
        assert want in str(err.value) and "\n" not in str(err.value)
