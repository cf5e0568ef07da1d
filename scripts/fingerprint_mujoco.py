"""Fingerprints of the MuJoCo kitchen's layout plans and compiled models, per scene, so a refactor
can show that it changed no world: run it before and after and compare the two JSON objects.

For every hand-made sample and every indoor benchmark scene: sha1 of the layout plan's repr,
and with --models also of the compiled model's binary (`mj_saveModel`: every array, name and
option) and of the state after `World.reset` (the scene settled for 300 steps).

Usage: python scripts/fingerprint_mujoco.py [--bench DIR] [--models] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json

import numpy as np

from robograph_backends.mujoco_kitchen.episodes import indoor_scene_ids, load_indoor
from robograph_backends.mujoco_kitchen.layout import solve_layout
from robograph_backends.mujoco_kitchen.samples import indoor_samples, skills_playground


def _sha(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def fingerprints(bench: str, models: bool) -> dict[str, dict[str, str]]:
    instances = [*indoor_samples(), skills_playground(), *load_indoor(bench, indoor_scene_ids()).instances]
    out: dict[str, dict[str, str]] = {}
    for inst in instances:
        record = {"plan": _sha(repr(solve_layout(inst.graph)).encode())}
        if models:
            from robograph_backends.mujoco_kitchen.deps import mujoco_module
            from robograph_backends.mujoco_kitchen.world import World

            mj = mujoco_module()
            world = World.build(inst.graph)
            buf = np.zeros(mj.mj_sizeModel(world.model), dtype=np.uint8)
            mj.mj_saveModel(world.model, None, buf)
            record["model"] = _sha(buf.tobytes())
            record["state"] = _sha(np.round(world.data.qpos, 12).tobytes())
        out[inst.id] = record
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default="bench", metavar="DIR", help="compiled benchmark directory (default: bench)")
    ap.add_argument("--models", action="store_true", help="also compile every world (about 1 s per scene)")
    ap.add_argument("--json", action="store_true", help="one JSON object on one line (default: indented)")
    args = ap.parse_args()
    result = fingerprints(args.bench, args.models)
    print(json.dumps(result, sort_keys=True) if args.json else json.dumps(result, sort_keys=True, indent=1))


if __name__ == "__main__":
    main()
