"""experiments/bench_web.py runs: a few steps through a real `vtm-sim serve`."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the web extra: pip install 'vtm-sim[web]'")
pytest.importorskip("httpx", reason="the dev extra: httpx")

from experiment_scripts import load_experiment


def test_bench_web_measures_a_few_steps() -> None:
    bench = load_experiment("bench_web")
    out = bench.run(6, ["duel"])
    assert out["choose_post"]["n"] == 6
    assert out["choose_then_page_html"]["n"] == 3 and out["choose_then_show_json"]["n"] == 3
    assert "load average" in out["uptime_before"]
