"""Errors of the SAPIEN tabletop backend: one root, each message naming what was wrong and the fix."""

from __future__ import annotations

from collections.abc import Sequence

from robograph.errors import BackendError


class SapienBackendError(BackendError):
    """Root of every error the SAPIEN tabletop backend raises on purpose."""


class VulkanUnavailable(SapienBackendError):
    """No Vulkan device SAPIEN can render with (Debian 12's stock lavapipe is too old)."""

    FIX = ("install Mesa 25 lavapipe from bookworm-backports: `apt-get install -t bookworm-backports "
           "mesa-vulkan-drivers libvulkan1` (scripts/setup_env.sh does it as root when ROBOGRAPH_EXTRAS "
           "names the sapien extra)")

    def __init__(self, detail: str) -> None:
        super().__init__(f"SAPIEN found no Vulkan rendering device ({detail}); {self.FIX}")


class UnsupportedScene(SapienBackendError):
    """A graph names things this builder cannot make (listed, with what it can make)."""

    def __init__(self, what: str, names: Sequence[str], valid: Sequence[str]) -> None:
        self.names = sorted(names)
        shown = ", ".join(sorted(valid)[:60]) + (" ..." if len(valid) > 60 else "")
        super().__init__(f"the SAPIEN tabletop builder cannot make {what}: {', '.join(self.names)}; "
                         f"it makes: {shown}")
