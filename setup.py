"""Build hooks only (metadata lives in pyproject.toml).

- The design card fixes the top-level folders `backends/`, `skills/`, `calibration/` and
  `ros_bridge/`; installed under those names they would shadow any other distribution's generic
  `backends` or `skills`. They install as `robograph_backends`, `robograph_skills`, ... (a
  package-dir mapping), so the repository layout and the import names each stay what they should be.
- The repository's top-level `assets/` is copied into the built package as `robograph/assets/`, so
  wheels and plain installs carry the catalog, the task families and the benchmark list while the
  repository keeps one editable copy.
"""

from pathlib import Path

from setuptools import find_packages, setup
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


# import name -> folder in the repository
NAMESPACED_FOLDERS = {
    "robograph_backends": "backends",
    "robograph_skills": "skills",
    "robograph_calibration": "calibration",
    "robograph_ros_bridge": "ros_bridge",
}


def packages_and_dirs() -> tuple[list[str], dict[str, str]]:
    packages = find_packages(include=["robograph", "robograph.*"])
    package_dir: dict[str, str] = {}
    for name, folder in NAMESPACED_FOLDERS.items():
        package_dir[name] = folder
        packages += [name] + [f"{name}.{sub}" for sub in find_packages(folder)]
    return packages, package_dir


PACKAGES, PACKAGE_DIR = packages_and_dirs()
setup(packages=PACKAGES, package_dir=PACKAGE_DIR, cmdclass={"build_py": BuildPyWithAssets})
