"""`robograph render INSTANCE --backend NAME --out DIR`: write the camera views of an instance's
initial scene as PNG files, through the backend registry (any backend whose `render` returns
images works; the symbolic backend has none). PNG encoding is Pillow's (the `viz` extra; every
rendering backend's extra brings it too)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from robograph.errors import DependencyNotInstalled
from robograph.instance import load_instance
from robograph.registry import backend_names, make_backend


def write_png(path: Path, image: np.ndarray) -> None:
    """image: HxW (grey) or HxWx3 (RGB) uint8 pixels."""
    try:
        from PIL import Image
    except ImportError:
        raise DependencyNotInstalled("pillow", "viz") from None
    Image.fromarray(np.ascontiguousarray(image)).save(path, format="PNG")


def _cmd_render(args: argparse.Namespace) -> int:
    inst = load_instance(args.instance)
    backend = make_backend(args.backend, width=args.width, height=args.height)
    try:
        backend.reset(inst.graph, seed=args.seed)
        images = backend.render(args.cameras)
    finally:
        backend.close()
    if not images:
        print(f"backend {args.backend!r} renders no images", file=sys.stderr)
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for cam, img in sorted(images.items()):
        path = out / f"{cam}.png"
        write_png(path, np.asarray(img))
        print(path)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("render", help="write the camera views (PNG) of an instance's initial scene")
    p.add_argument("instance", metavar="INSTANCE", help="instance file (JSON or YAML)")
    p.add_argument("--backend", default="mujoco", choices=backend_names())
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--width", type=int, default=320)
    p.add_argument("--height", type=int, default=240)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cameras", nargs="+", default=["head", "left", "right"])
    p.set_defaults(handler=_cmd_render)
