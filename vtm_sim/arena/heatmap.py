"""The win-rate heatmap of a tournament (matplotlib, the optional ``plots`` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vtm_sim.arena.results import win_matrix


def have_matplotlib() -> bool:
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def write_heatmap(results: dict[str, Any], path: Path) -> None:
    """One panel per scenario: the row policy's win rate against the column
    policy over both seats; on the diagonal (a policy against itself, grey)
    the win rates of side 0 / side 1, what the seat is worth."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    policies = results["policies"]
    scenarios = [s["name"] for s in results["scenarios"]]
    n = len(policies)
    size = 1.2 + 0.9 * n
    fig, axes = plt.subplots(1, len(scenarios), figsize=(size * len(scenarios) + 1.0, size),
                             squeeze=False)
    image = None
    for ax, name in zip(axes[0], scenarios, strict=True):
        m = win_matrix(results, name)
        mirror = {p["policies"][0]: [s["win_rate"] for s in p["seats"]]
                  for p in results["pairings"]
                  if p["scenario"] == name and p["policies"][0] == p["policies"][1]}
        cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#d0d0d0")
        values = [[float("nan") if v is None else v for v in row] for row in m]
        image = ax.imshow(values, vmin=0.0, vmax=1.0, cmap=cmap)
        ax.set_xticks(range(n), policies, rotation=30, ha="right")
        ax.set_yticks(range(n), policies)
        ax.set_xlabel("opponent")
        ax.set_title(f"{name}: win rate (mirror: side 0 / side 1)", fontsize=10)
        for i in range(n):
            for j in range(n):
                v = m[i][j]
                text = " / ".join(f"{x:.2f}" for x in mirror[policies[i]]) if v is None \
                    else f"{v:.2f}"
                ax.text(j, i, text, ha="center", va="center", fontsize=8)
    axes[0][0].set_ylabel("policy")
    if image is not None:
        fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8)
    fig.savefig(path, dpi=100, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
