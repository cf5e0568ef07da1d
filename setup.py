"""Build hook only (metadata lives in pyproject.toml): copy the repository's top-level `assets/`
into the built package as `robograph/assets/`, so wheels and plain installs carry the catalog,
the task families and the benchmark list while the repository keeps one editable copy."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ASSETS = Path(__file__).resolve().parent / "assets"


class BuildPyWithAssets(build_py):
    def run(self) -> None:
        super().run()
        if not (ASSETS / "objects.yaml").is_file():
            raise SystemExit(f"cannot build robograph: {ASSETS}/objects.yaml is missing")
        target = Path(self.build_lib) / "robograph" / "assets"
        for src in sorted(ASSETS.rglob("*.yaml")):
            dst = target / src.relative_to(ASSETS)
            self.mkpath(str(dst.parent))
            self.copy_file(str(src), str(dst))


setup(cmdclass={"build_py": BuildPyWithAssets})
