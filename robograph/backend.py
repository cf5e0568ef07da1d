"""The Backend protocol: how the runtime talks to a world (symbolic, simulated or real).

The graph stays canonical. The runtime asks a backend to `execute` an action whose preconditions
held, then `reconcile`s: the backend reads its world back into a graph and the runtime turns any
difference into rewrites. Exogenous events go the other way through `realize`. A backend never
decides task success.

A backend declares what it can do (`Capabilities`) so that callers ask only for that: a real
robot cannot teleport an object or spawn one, so it does not list `move_node` / `add_node` among
the rewrites it realizes, and the runtime refuses such an event with `UnsupportedRewrite` instead
of letting the world and the graph drift apart. `backend_check.check_backend` verifies the
declarations against behaviour.

Deadlines are absolute `time.monotonic()` values (so one budget can span several calls without
re-computing what is left); `deadline_in(seconds)` builds one. Cancellation is cooperative: the
caller sets a `threading.Event` (anything with `is_set()`), the backend polls it between its own
units of work (physics steps, skill phases) and returns `DEADLINE_EXCEEDED` / `CANCELLED`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from robograph.actions import Action
from robograph.errors import BackendError
from robograph.failures import ActionFailure, FailureType
from robograph.graph import SceneGraph
from robograph.rewrite import AddEdge, AddNode, MoveNode, RemoveEdge, Rewrite, SetAttr

EXECUTION_MODES = ("physics", "assisted")
# rewrite class -> the kind a backend lists in Capabilities.realizes (the `op` of its JSON form)
REWRITE_KINDS: dict[type, str] = {
    SetAttr: "set_attr",
    AddEdge: "add_edge",
    RemoveEdge: "remove_edge",
    AddNode: "add_node",
    MoveNode: "move_node",
}
ALL_REWRITE_KINDS = frozenset(REWRITE_KINDS.values())
# standard keys of Execution.info (a backend may add its own): seconds are wall-clock
INFO_KEYS = ("wall_s", "physics_s", "render_s", "assists", "retries")


def rewrite_kind(rewrite: Rewrite) -> str:
    return REWRITE_KINDS[type(rewrite)]


class Cancel(Protocol):
    """Cooperative cancellation token (`threading.Event` satisfies it)."""

    def is_set(self) -> bool: ...


def deadline_in(seconds: float) -> float:
    """An absolute deadline `seconds` from now, as `execute(..., deadline=...)` expects."""
    return time.monotonic() + float(seconds)


def interruption(deadline: float | None, cancel: Cancel | None) -> ActionFailure | None:
    """The typed failure a backend returns when the deadline passed or the caller cancelled;
    None while it may go on. Cancellation wins over an expired deadline (the caller asked)."""
    if cancel is not None and cancel.is_set():
        return ActionFailure(FailureType.CANCELLED, "cancelled by the caller")
    if deadline is not None and time.monotonic() >= deadline:
        return ActionFailure(FailureType.DEADLINE_EXCEEDED, "the action ran past its deadline")
    return None


class ExecutionInterrupted(BackendError):
    """Raised from a simulated world's stepping hook to unwind a motion at its deadline or on
    cancel; the backend's execute turns it back into `failure`."""

    def __init__(self, failure: ActionFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def interrupt_hook(deadline: float | None, cancel: Cancel | None) -> Callable[[], None] | None:
    """A stepping hook for one execute() of a simulated backend: called every few physics steps,
    it raises `ExecutionInterrupted` once `interruption` reports a failure. None when there is
    nothing to watch, so the world's loop skips the call."""
    if deadline is None and cancel is None:
        return None

    def check() -> None:
        failure = interruption(deadline, cancel)
        if failure is not None:
            raise ExecutionInterrupted(failure)

    return check


class CameraIntrinsics(Protocol):
    """What the core needs of a camera model: a pinhole (pixels) and its pose `T_world_cam`
    (4x4, OpenCV axes: x right, y down, z forward). `robograph_calibration.camera.CameraModel` satisfies
    it; the core does not import calibration/ (layering)."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    T_world_cam: np.ndarray


@dataclass(frozen=True, slots=True)
class CameraSpec:
    """A camera a backend offers. `model` is its model in the backend's initial state (None when
    the pose is only known once a world exists, e.g. a head camera on a mobile base); frames
    carry the model at the time they were taken."""

    name: str
    width: int
    height: int
    model: CameraIntrinsics | None = None


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a backend can do. `realizes`: rewrite kinds (`REWRITE_KINDS` values) `realize`
    makes physical; `modes`: execution modes (`EXECUTION_MODES`); `mode`: the one this instance
    runs in; `deadlines`: execute() honours `deadline` and `cancel` (a backend that cannot stop
    mid-action says False; the runtime then only checks them between actions)."""

    cameras: tuple[CameraSpec, ...] = ()
    realizes: frozenset[str] = ALL_REWRITE_KINDS
    modes: tuple[str, ...] = ("physics",)
    mode: str = "physics"
    deadlines: bool = False

    def __post_init__(self) -> None:
        unknown = set(self.realizes) - ALL_REWRITE_KINDS
        if unknown:
            raise BackendError(f"unknown rewrite kind(s) {sorted(unknown)}; valid: {sorted(ALL_REWRITE_KINDS)}")
        bad = [m for m in self.modes if m not in EXECUTION_MODES]
        if bad or self.mode not in self.modes:
            raise BackendError(f"modes {list(self.modes)} / mode {self.mode!r}: each must be one of "
                               f"{', '.join(EXECUTION_MODES)} and mode among modes")

    @property
    def camera_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.cameras)


@dataclass(frozen=True, slots=True)
class Percept:
    """Relations a backend read from the depth of one `render()` call's frames, fused over all
    of them (every frame of the call carries the same object): depth back-projected through
    each camera's model into per-node clouds, then the reconcile's own region predicates.
    `locations`: movable node -> (INSIDE | ON | IN_ROOM, target); `open`: articulated node ->
    open, fitted to the points of its moving part; `boxes`: node -> (centre, half extents),
    world frame, metres, axis-aligned, of its points (often only the side a camera saw). Nodes
    without enough points are absent from all three: unobserved, not guessed. `movable`: every
    node whose location the backend reads this way, seen or not (the others' relations are
    static structure: furniture, rooms)."""

    locations: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    open: Mapping[str, bool] = field(default_factory=dict)
    boxes: Mapping[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = field(default_factory=dict)
    movable: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Frame:
    """One rendered view. image (H, W, 3) uint8; depth (H, W) float32 metres along the optical
    axis; segmentation (H, W) int64 labels (-1 = nothing); `labels[k]` is the node id label k
    shows, so a perception agent can name what it sees without the backend; `timestamp` in
    seconds of the backend's clock (simulation time for a simulator, ROS time for a robot);
    `percept`: relations read from depth, when the backend was asked for them (see `Percept`)."""

    camera: str
    image: np.ndarray
    model: CameraIntrinsics
    timestamp: float
    depth: np.ndarray | None = None
    segmentation: np.ndarray | None = None
    labels: tuple[str, ...] = ()
    percept: Percept | None = None


@dataclass(frozen=True, slots=True)
class Execution:
    """What a backend reports for one action: `failure` is None when it ran as commanded.
    `info` carries backend figures, JSON-ready: `wall_s`, `physics_s`, `render_s` (seconds),
    `assists` (list of strings, one per privileged help, e.g. "servo fridge_door"), `retries`
    (int), plus backend-specific ones. The runtime keeps it in the step record and trace."""

    failure: ActionFailure | None = None
    info: Mapping[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


OK = Execution()


class UnsupportedRewrite(BackendError):
    """An event asked a backend to realize a rewrite kind it does not declare (e.g. a teleport
    on a real robot)."""


def check_realizable(capabilities: Capabilities, backend_name: str, rewrites: Sequence[Rewrite]) -> None:
    bad = sorted({rewrite_kind(r) for r in rewrites} - set(capabilities.realizes))
    if bad:
        raise UnsupportedRewrite(
            f"backend {backend_name!r} cannot realize {', '.join(bad)} rewrites; it realizes: "
            f"{', '.join(sorted(capabilities.realizes)) or 'none'}")


@runtime_checkable
class Backend(Protocol):
    name: str
    capabilities: Capabilities

    def reset(self, graph: SceneGraph, *, seed: int) -> None:
        """Build the world for G0 (graph -> world)."""

    def realize(self, graph: SceneGraph, rewrites: Sequence[Rewrite]) -> None:
        """Apply exogenous rewrites physically; `graph` is the state after them."""

    def execute(self, graph: SceneGraph, action: Action, expected: SceneGraph, *,
                deadline: float | None = None, cancel: Cancel | None = None) -> Execution:
        """Run an action whose preconditions hold on `graph`; `expected` is its symbolic outcome.
        `deadline`: absolute time.monotonic() seconds; `cancel`: polled between units of work."""

    def reconcile(self, expected: SceneGraph) -> SceneGraph:
        """Read the world back into a graph (world -> graph). Returning `expected` itself (the same
        object) tells the runtime nothing differs, which keeps the symbolic path cheap."""

    def render(self, cameras: Sequence[str] | None = None) -> list[Frame]:
        """One Frame per camera (default: every declared camera); empty for the symbolic backend."""

    def close(self) -> None: ...


@dataclass
class InfoTotals:
    """Sums of Execution.info over many steps (benches, reports): seconds and assists by kind.
    An assist's kind is its first word ("servo fridge_door" -> "servo")."""

    steps: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    assists: dict[str, int] = field(default_factory=dict)
    retries: int = 0

    def add(self, info: Mapping[str, Any] | None) -> None:
        self.steps += 1
        if not info:
            return
        for key in ("wall_s", "physics_s", "render_s"):
            if key in info:
                self.seconds[key] = self.seconds.get(key, 0.0) + float(info[key])
        for assist in info.get("assists", ()):
            kind = str(assist).split(" ", 1)[0]
            self.assists[kind] = self.assists.get(kind, 0) + 1
        self.retries += int(info.get("retries", 0))

    @property
    def assist_count(self) -> int:
        return sum(self.assists.values())
