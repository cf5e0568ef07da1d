"""`robograph render INSTANCE --backend NAME --out DIR`: write the camera views of an instance's
initial scene as PNG files, through the backend registry (any backend whose `render` returns
frames works; the symbolic backend has none). `--backend-opt KEY=VALUE` passes backend options.
PNG encoding is Pillow's (the `viz` extra; every rendering backend's extra brings it too)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from robograph.errors import DependencyNotInstalled
from robograph.instance import load_instance
from robograph.registry import (
    add_backend_arguments,
    backend_factory,
    backend_options,
    make_backend,
    parse_backend_opts,
)


def write_png(path: Path, image: np.ndarray) -> None:
    """image: HxW (grey) or HxWx3 (RGB) uint8 pixels."""
    try:
        from PIL import Image
    except ImportError:
        raise DependencyNotInstalled("pillow", "viz") from None
    Image.fromarray(np.ascontiguousarray(image)).save(path, format="PNG")


def _cmd_render(args: argparse.Namespace) -> int:
    inst = load_instance(args.instance)
    accepted = backend_options(backend_factory(args.backend))
    size = {k: v for k, v in (("width", args.width), ("height", args.height)) if k in accepted}
    options = {**size, **parse_backend_opts(args.backend_opt)}
    backend = make_backend(args.backend, **options)
    try:
        backend.reset(inst.graph, seed=args.seed)
        frames = backend.render(args.cameras)
    finally:
        backend.close()
    if not frames:
        print(f"backend {args.backend!r} renders no images", file=sys.stderr)
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for frame in sorted(frames, key=lambda f: f.camera):
        path = out / f"{frame.camera}.png"
        write_png(path, np.asarray(frame.image))
        print(path)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("render", help="write the camera views (PNG) of an instance's initial scene")
    p.add_argument("instance", metavar="INSTANCE", help="instance file (JSON or YAML)")
    add_backend_arguments(p, default="mujoco")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--width", type=int, default=320)
    p.add_argument("--height", type=int, default=240)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cameras", nargs="+", default=None,
                   help="cameras to render (default: every camera the backend declares)")
    p.set_defaults(handler=_cmd_render)
