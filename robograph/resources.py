"""Where the shipped data files live, in a source checkout and in an installed wheel.

The top-level `assets/` folder of the repository is the source of truth (object catalog, task
families, benchmark list): editing it needs no code change. A wheel carries a copy of it as
package data under `robograph/assets/` (setup.py's build step copies it there), so a plain
`pip install .` works without the repository. A checkout has no `robograph/assets/`, so the
repository's folder is found next to the package. Nothing falls back to an empty catalog: a
missing folder is an error that names where it looked.
"""

from __future__ import annotations

from pathlib import Path

from robograph.errors import RoboGraphError

_PACKAGE = Path(__file__).resolve().parent
# installed wheel first, then the repository checkout the package was imported from
ASSET_DIRS: tuple[Path, ...] = (_PACKAGE / "assets", _PACKAGE.parent / "assets")
CATALOG_FILE = "objects.yaml"


class AssetsNotFound(RoboGraphError, FileNotFoundError):
    """Neither an installed copy nor the repository's `assets/` folder holds the catalog."""


def assets_dir() -> Path:
    """The folder holding `objects.yaml`, `families/` and `benchmark.yaml`."""
    for candidate in ASSET_DIRS:
        if (candidate / CATALOG_FILE).is_file():
            return candidate
    looked = ", ".join(str(p) for p in ASSET_DIRS)
    raise AssetsNotFound(
        f"no {CATALOG_FILE} in {looked}; reinstall robograph (the wheel ships assets/) or pass "
        "--assets DIR pointing at a folder with objects.yaml and families/")


def catalog_path() -> Path:
    """The object catalog `objects.yaml` (size, colour, articulation, affordances per category)."""
    return assets_dir() / CATALOG_FILE
