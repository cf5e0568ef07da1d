"""Small correctness guarantees: payloads share nothing mutable, shared catalogs are read-only,
the library leaves matplotlib's global backend alone, the Gymnasium env closes its backend, the
metrics do not import the harness, and rendered views are real PNGs (decoded by Pillow)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from robograph.actions import CATALOG
from robograph.gym_env import RoboGraphEnv, demo_instance_path
from robograph.harness.payload import OBSERVATION_TIMING, OUTPUT_SCHEMA, build_payload
from robograph.instance import load_instance
from robograph.runtime import Episode
from robograph_backends.symbolic import SymbolicBackend

ROOT = Path(__file__).resolve().parents[1]


def _payload() -> dict:
    episode = Episode(load_instance(demo_instance_path()), SymbolicBackend())
    episode.reset(0)
    return build_payload(episode)


def test_payloads_share_no_mutable_objects():
    first, second = _payload(), _payload()
    reference = json.dumps(second, sort_keys=True)
    # an agent that scribbles over everything it was handed
    first["output_schema"]["action"]["name"] = "anything"
    first["output_schema"]["recovery"].clear()
    first["observation_timing"]["current_observation"] = "whenever"
    first["action_constraints"].append("extra")
    first["action_catalog"]["stop"]["parameters"].append("x")
    first["settings"].append("s")
    first["current_observation"]["robot"]["hands"]["left"] = "ghost"
    assert json.dumps(second, sort_keys=True) == reference
    assert json.dumps(_payload(), sort_keys=True) == reference


def test_shared_constants_and_catalogs_are_read_only():
    with pytest.raises(TypeError):
        OUTPUT_SCHEMA["action"]["name"] = "x"  # type: ignore[index]
    with pytest.raises(TypeError):
        OBSERVATION_TIMING["current_observation"] = "x"  # type: ignore[index]
    with pytest.raises(TypeError):
        CATALOG["fly"] = CATALOG["stop"]  # type: ignore[index]
    from robograph_backends.mujoco_kitchen.catalog import load_catalog

    catalog = load_catalog()
    entry = next(iter(catalog.values()))
    with pytest.raises(TypeError):
        catalog["new"] = {}  # type: ignore[index]
    with pytest.raises(TypeError):
        entry["size"] = (1, 1, 1)  # type: ignore[index]
    assert all(not isinstance(v, list) for e in catalog.values() for v in e.values())


def test_report_plots_leave_matplotlib_backend_alone(tmp_path):
    pytest.importorskip("matplotlib")
    from robograph.harness.runner import RunSpec, run

    run(RunSpec(str(demo_instance_path()), "explorer", str(tmp_path / "r"), workers=1, progress=False, durable=False))
    script = (
        "import sys, matplotlib\n"
        "matplotlib.use('pdf')\n"
        "from pathlib import Path\n"
        "from robograph.harness.report import load_records, plot_figure4\n"
        f"paths = plot_figure4(load_records([{str(tmp_path / 'r')!r}]), Path({str(tmp_path)!r}))\n"
        "print(matplotlib.get_backend(), len(paths), 'matplotlib.pyplot' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["pdf", "1", "False"]
    assert (tmp_path / "figure4.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


class _CountingBackend(SymbolicBackend):
    def __init__(self) -> None:
        super().__init__()
        self.closed = 0

    def close(self) -> None:
        self.closed += 1
        super().close()


def test_env_close_closes_its_backend_once():
    backend = _CountingBackend()
    env = RoboGraphEnv(backend=backend)
    env.reset(seed=0)
    env.close()
    env.close()
    assert backend.closed == 1


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_metrics_do_not_import_the_harness():
    for path in sorted((ROOT / "robograph" / "metrics").glob("*.py")):
        bad = sorted(n for n in _imports(path) if n.startswith("robograph.harness"))
        assert not bad, f"{path.name} imports {bad}: the dependency must run harness -> metrics only"


@pytest.mark.slow
@pytest.mark.usefixtures("requires_mujoco")
def test_rendered_views_are_pngs_holding_the_backend_frames(tmp_path):
    from PIL import Image

    from robograph.cli import main
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend

    demo = demo_instance_path()
    assert main(["render", str(demo), "--backend", "mujoco", "--out", str(tmp_path), "--width", "96",
                 "--height", "72", "--cameras", "head"]) == 0
    with Image.open(tmp_path / "head.png") as img:
        assert img.format == "PNG" and img.mode == "RGB" and img.size == (96, 72)
        decoded = np.asarray(img)
    backend = MujocoKitchenBackend(width=96, height=72, cameras=("head",))
    try:
        backend.reset(load_instance(demo).graph, seed=0)
        frame = np.asarray(backend.render(["head"])[0].image)
    finally:
        backend.close()
    assert decoded.std() > 5  # a real view, not a blank frame
    assert np.array_equal(decoded, frame)
