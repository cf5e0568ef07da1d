"""SAPIEN tabletop backend (foundations): a table scene built from a tabletop graph, two Pandas,
head and wrist cameras rendered headless through Vulkan (Mesa 25 lavapipe).

Importing this package does not import SAPIEN; building a world does, after probing Vulkan in a
child process (`VulkanUnavailable` names the fix instead of a crash).
"""

from robograph_backends.sapien_tabletop.backend import SapienTabletopBackend
from robograph_backends.sapien_tabletop.errors import SapienBackendError, UnsupportedScene, VulkanUnavailable

__all__ = ["SapienBackendError", "SapienTabletopBackend", "UnsupportedScene", "VulkanUnavailable"]
