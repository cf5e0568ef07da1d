"""Conformance check for backends, in the spirit of Gymnasium's `check_env`.

`check_backend(make, instances)` runs every rule below against fresh backends built by `make` and
raises `ConformanceError` naming the first broken rule; it returns a `CheckReport` of the rules
that passed and the probes it could not run (e.g. no closed container in the scenes). Any
backend can run it (`robograph check-backend NAME`); CI runs it for symbolic and MuJoCo.

Rules:
- `protocol`: the Backend methods exist; `execute` takes `deadline` and `cancel` keywords;
  `capabilities` is a `Capabilities`, its cameras carry a size and name.
- `reset_reconcile`: right after `reset(G0)`, `reconcile(G0)` reads back exactly G0.
- `realize_reconcile`: for every rewrite kind the backend declares, a probe rewrite built from the
  scene (open a closed container; move an object onto another surface; add a new object; add and
  remove an occlusion) is realized and read back unchanged; a kind it does not declare is refused
  by the runtime with `UnsupportedRewrite`.
- `render`: one Frame per declared camera: (H, W, 3) uint8 at the declared size, a camera model
  with finite intrinsics and a 4x4 rigid `T_world_cam`, a finite timestamp; optional depth /
  segmentation (H, W). A backend without cameras renders nothing.
- `typed_failures`: an action past its deadline fails with `deadline_exceeded`, a cancelled one
  with `cancelled` (a backend that declares `deadlines`), and the world reads back unchanged
  when the action was stopped before it started.
- `determinism`: the same instance, seed and actions give the same trace twice (step records
  and Execution.info, wall-clock seconds excepted).
"""

from __future__ import annotations

import inspect
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from robograph.actions import Action, check, effects
from robograph.backend import (
    Backend,
    Capabilities,
    Frame,
    UnsupportedRewrite,
    check_realizable,
    rewrite_kind,
)
from robograph.errors import RoboGraphError
from robograph.failures import FailureType
from robograph.graph import (
    CONTAINER,
    GRABBABLE,
    INSIDE,
    MOVABLE,
    OCCLUDES,
    ON,
    OPENABLE,
    PART,
    SURFACE,
    Edge,
    Node,
    SceneGraph,
)
from robograph.instance import TaskInstance
from robograph.rewrite import AddEdge, AddNode, MoveNode, RemoveEdge, Rewrite, SetAttr, apply_all
from robograph.view import compute_view

RULES = ("protocol", "reset_reconcile", "realize_reconcile", "render", "typed_failures", "determinism")
PROTOCOL_METHODS = ("reset", "realize", "execute", "reconcile", "render", "close")
PROBE_NODE = "conformance_probe"


class ConformanceError(RoboGraphError):
    """A backend broke a rule of the contract; `rule` names it (one of RULES)."""

    def __init__(self, rule: str, backend: str, message: str) -> None:
        self.rule = rule
        super().__init__(f"backend {backend!r} breaks rule {rule!r}: {message}")


@dataclass
class CheckReport:
    backend: str
    instances: list[str]
    passed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # probes with nothing to probe in these scenes

    def to_json(self) -> dict[str, Any]:
        return {"backend": self.backend, "instances": self.instances, "passed": self.passed,
                "skipped": self.skipped}


# probes: rewrites of each kind built from a scene -------------------------------------------------
def _movable_objects(g: SceneGraph) -> list[str]:
    out = []
    for nid in sorted(g.nodes):
        n = g.nodes[nid]
        loc = g.location.get(nid)
        if (n.has(GRABBABLE) and n.has(MOVABLE) and not n.has(PART) and loc is not None
                and loc.rel in (ON, INSIDE) and g.hand_of(nid) is None
                and not any(g.location.get(o) is not None and g.location[o].dst == nid for o in g.nodes)):
            out.append(nid)
    return out


def _free_surfaces(g: SceneGraph, obj: str) -> list[str]:
    here = g.location[obj].dst
    return [nid for nid in sorted(g.nodes)
            if nid not in (obj, here) and g.nodes[nid].has(SURFACE) and not g.nodes[nid].has(MOVABLE)
            and g.room_of(nid) == g.room_of(obj) and not g.is_full(nid) and obj not in g.ancestors(nid)
            and g.hand_of(nid) is None]


def probe_rewrites(g: SceneGraph) -> dict[str, list[Rewrite]]:
    """One small, valid rewrite list per kind it can build on `g` (kind -> rewrites). Probes are
    chosen deterministically (sorted ids) so a failure reproduces."""
    probes: dict[str, list[Rewrite]] = {}
    closed = [n for n in sorted(g.nodes) if g.nodes[n].has(OPENABLE) and g.nodes[n].has(CONTAINER)
              and not g.is_open(n) and g.hand_of(n) is None]
    if closed:
        probes["set_attr"] = [SetAttr(closed[0], "open", True)]
    # an object that hides or is hidden, or the pair the add_edge probe makes one (the probes
    # are applied one after the other), would take an occlusion with it: a physical backend
    # that measures OCCLUDES reads that change too
    pair = _occlusion_pair(g)
    involved = {n for e in g.edges if e.rel == OCCLUDES for n in (e.src, e.dst)} | set(pair or ())
    for obj in [o for o in _movable_objects(g) if o not in involved]:
        spots = _free_surfaces(g, obj)
        if spots:
            src = g.nodes[obj]
            probes["move_node"] = [MoveNode(obj, ON, spots[0])]
            node = Node(PROBE_NODE, f"probe {src.name}", src.category, src.kind, src.affordances)
            probes["add_node"] = [AddNode(node), MoveNode(PROBE_NODE, ON, spots[-1])]
            break
    occluding = sorted((e for e in g.edges if e.rel == OCCLUDES and g.occlusion_active(e)
                        and g.nodes[e.src].has(MOVABLE)), key=lambda e: (e.src, e.dst))
    if occluding:
        probes["remove_edge"] = [RemoveEdge(occluding[0])]
    if pair is not None:
        probes["add_edge"] = [AddEdge(Edge(pair[0], OCCLUDES, pair[1]))]
    return probes


def _occlusion_pair(g: SceneGraph) -> tuple[str, str] | None:
    """A movable blocker and a target already on the same support, neither part of any occlusion
    yet (as I5 builds; moving a node that hides something would change that occlusion too)."""
    involved = {n for e in g.edges if e.rel == OCCLUDES for n in (e.src, e.dst)}
    objects = [o for o in _movable_objects(g) if o not in involved]
    for blocker in objects:
        support = g.location[blocker]
        for target in objects:
            if target != blocker and (g.location[target].rel, g.location[target].dst) == (support.rel, support.dst):
                return blocker, target
    return None


# the check -------------------------------------------------------------------------------------------
class _Checker:
    def __init__(self, make: Callable[[], Backend], instances: Sequence[TaskInstance], steps: int, seed: int) -> None:
        if not instances:
            raise RoboGraphError("check_backend needs at least one instance")
        self.make, self.instances, self.steps, self.seed = make, list(instances), steps, seed
        probe = make()
        self.name = str(getattr(probe, "name", type(probe).__name__))
        self.first = probe
        self.report = CheckReport(self.name, [i.id for i in self.instances])

    def fail(self, rule: str, message: str) -> None:
        raise ConformanceError(rule, self.name, message)

    def run(self) -> CheckReport:
        caps = self.protocol(self.first)
        self.first.close()
        for rule in RULES[1:]:
            getattr(self, rule)(caps)
            self.report.passed.append(rule)
        return self.report

    # rules ---------------------------------------------------------------------------------------
    def protocol(self, be: Any) -> Capabilities:
        missing = [m for m in PROTOCOL_METHODS if not callable(getattr(be, m, None))]
        if missing or not isinstance(getattr(be, "name", None), str):
            self.fail("protocol", f"missing {missing or ['name (str)']}; a backend has name, capabilities "
                                  f"and {', '.join(PROTOCOL_METHODS)}")
        params = inspect.signature(be.execute).parameters
        for key in ("deadline", "cancel"):
            if key not in params or params[key].kind is not inspect.Parameter.KEYWORD_ONLY:
                self.fail("protocol", f"execute() must take keyword-only {key!r} (deadline: absolute "
                                      f"time.monotonic() seconds; cancel: an object with is_set())")
        caps = getattr(be, "capabilities", None)
        if not isinstance(caps, Capabilities):
            self.fail("protocol", f"capabilities is {type(caps).__name__}, not robograph.backend.Capabilities")
        for cam in caps.cameras:
            if not cam.name or cam.width <= 0 or cam.height <= 0:
                self.fail("protocol", f"camera {cam!r} needs a name and a positive size")
        self.report.passed.append("protocol")
        return caps

    def reset_reconcile(self, caps: Capabilities) -> None:
        for inst in self.instances:
            be = self.make()
            try:
                be.reset(inst.graph, seed=self.seed)
                self._same("reset_reconcile", inst, be.reconcile(inst.graph), inst.graph, "after reset(G0)")
            finally:
                be.close()

    def realize_reconcile(self, caps: Capabilities) -> None:
        probed: set[str] = set()
        for inst in self.instances:
            probes = probe_rewrites(inst.graph)
            be = self.make()
            try:
                be.reset(inst.graph, seed=self.seed)
                graph = be.reconcile(inst.graph)
                for kind in sorted(probes):
                    rewrites = probes[kind]
                    if not {rewrite_kind(r) for r in rewrites} <= caps.realizes:
                        try:
                            check_realizable(caps, self.name, rewrites)
                        except UnsupportedRewrite:
                            continue
                        self.fail("realize_reconcile", f"{kind} is not declared, yet the runtime let it through")
                    target = apply_all(graph, rewrites)
                    be.realize(target, rewrites)
                    what = f"after realizing {', '.join(str(r) for r in rewrites)}"
                    graph = self._same("realize_reconcile", inst, be.reconcile(target), target, what)
                    probed.add(kind)
            finally:
                be.close()
        self.report.skipped += [f"realize {k}: no probe in these scenes"
                                for k in sorted(caps.realizes - probed)]

    def render(self, caps: Capabilities) -> None:
        inst = self.instances[0]
        be = self.make()
        try:
            be.reset(inst.graph, seed=self.seed)
            frames = be.render(None)
            if not isinstance(frames, list) or not all(isinstance(f, Frame) for f in frames):
                self.fail("render", f"render() returned {type(frames).__name__}; expected a list of Frame")
            want = {c.name: c for c in caps.cameras}
            got = [f.camera for f in frames]
            if sorted(got) != sorted(want):
                self.fail("render", f"render(None) gave cameras {got}; declared {sorted(want)}")
            for f in frames:
                self._frame(f, want[f.camera].width, want[f.camera].height)
        finally:
            be.close()

    def _frame(self, f: Frame, width: int, height: int) -> None:
        img = np.asarray(f.image)
        if img.shape != (height, width, 3) or img.dtype != np.uint8:
            self.fail("render", f"{f.camera}: image {img.shape} {img.dtype}; expected ({height}, {width}, 3) uint8")
        m = f.model
        k = [m.fx, m.fy, m.cx, m.cy]
        if (m.width, m.height) != (width, height) or not all(math.isfinite(v) for v in k) or m.fx <= 0 or m.fy <= 0:
            self.fail("render", f"{f.camera}: camera model {m.width}x{m.height} fx,fy,cx,cy={k} does not fit the image")
        T = np.asarray(m.T_world_cam, dtype=float)
        if T.shape != (4, 4) or not np.allclose(T[3], [0, 0, 0, 1]) or not np.allclose(T[:3, :3] @ T[:3, :3].T, np.eye(3), atol=1e-6):
            self.fail("render", f"{f.camera}: T_world_cam is not a 4x4 rigid transform")
        if not math.isfinite(float(f.timestamp)):
            self.fail("render", f"{f.camera}: timestamp {f.timestamp!r} is not a finite number of seconds")
        for what, arr in (("depth", f.depth), ("segmentation", f.segmentation)):
            if arr is not None and np.asarray(arr).shape != (height, width):
                self.fail("render", f"{f.camera}: {what} {np.asarray(arr).shape}; expected ({height}, {width})")

    def typed_failures(self, caps: Capabilities) -> None:
        if not caps.deadlines:
            self.report.skipped.append("typed_failures: the backend does not declare deadlines")
            return
        inst = self.instances[0]
        action = self._first_action(inst)
        expected = apply_all(inst.graph, effects(inst.graph, action))
        cancelled = threading.Event()
        cancelled.set()
        stops: list[tuple[str, dict[str, Any]]] = [
            (FailureType.DEADLINE_EXCEEDED, {"deadline": time.monotonic() - 1.0}),
            (FailureType.CANCELLED, {"cancel": cancelled}),
        ]
        be = self.make()
        try:
            be.reset(inst.graph, seed=self.seed)
            for want, kwargs in stops:
                result = be.execute(inst.graph, action, expected, **kwargs)
                got = result.failure.type if result.failure is not None else None
                if got != want:
                    self.fail("typed_failures", f"{action} with {sorted(kwargs)} stopped before it began: "
                                                f"failure {got}; expected {want.value}")
                # a flag the action would have set reads back False rather than absent (the
                # measured world has it unset): the same state, so compare without unset flags
                self._same("typed_failures", inst, _unset_dropped(be.reconcile(expected)),
                           _unset_dropped(inst.graph), f"after {action} was stopped ({want.value}) before it began")
            # a deadline that expires while the action runs (instant backends finish first)
            result = be.execute(inst.graph, action, expected, deadline=time.monotonic() + 1e-3)
            got = result.failure.type if result.failure is not None else None
            if got not in (None, FailureType.DEADLINE_EXCEEDED):
                self.fail("typed_failures", f"{action} past a 1 ms deadline failed with {got}; expected "
                                            "deadline_exceeded (or success if it finished in time)")
            be.reconcile(expected)
        finally:
            be.close()

    def determinism(self, caps: Capabilities) -> None:
        from robograph.runtime import Episode

        inst = self.instances[0]
        actions = self._plan(inst)[: self.steps]
        traces = []
        for _ in range(2):
            be = self.make()
            try:
                ep = Episode(inst, be)
                ep.reset(self.seed)
                for a in actions:
                    if ep.done:
                        break
                    ep.step(a)
                traces.append([_comparable(r.to_json()) for r in ep.trace.steps])
            finally:
                be.close()
        if traces[0] != traces[1]:
            k = next(i for i, (a, b) in enumerate(zip(*traces, strict=False)) if a != b) if len(traces[0]) == len(traces[1]) else -1
            self.fail("determinism", f"two runs of {inst.id} with seed {self.seed} differ"
                                     + (f" at step {k + 1}: {traces[0][k]} vs {traces[1][k]}" if k >= 0 else " in length"))

    # helpers -------------------------------------------------------------------------------------
    def _same(self, rule: str, inst: TaskInstance, got: SceneGraph, want: SceneGraph, when: str) -> SceneGraph:
        if got != want:
            from robograph.rewrite import diff

            changes = "; ".join(str(r) for r in diff(want, got))[:400]
            self.fail(rule, f"{inst.id}: reconcile {when} differs from the graph: {changes}")
        return got

    def _plan(self, inst: TaskInstance) -> list[Action]:
        plan = inst.metadata.get("oracle_plan")
        if plan:
            return [Action.parse(a) if isinstance(a, str) else Action(a["name"], tuple(a["node_ids"])) for a in plan]
        from robograph.oracle import solve

        return list(solve(inst.graph, inst.goal, inst.actions).actions)

    def _first_action(self, inst: TaskInstance) -> Action:
        view = compute_view(inst.graph)
        for a in self._plan(inst):
            if a.name != "stop" and check(inst.graph, view, a, inst.actions) is None:
                return a
        raise RoboGraphError(f"{inst.id}: no executable action on G0 to probe deadlines with")


def _unset_dropped(g: SceneGraph) -> SceneGraph:
    """`g` without attributes whose value is False or None (an unset flag, e.g. `moved_aside`
    read back False after an action that would have set it was stopped)."""
    return g.derive(attrs={n: {k: v for k, v in a.items() if v is not None and v is not False}
                           for n, a in g.attrs.items()})


def _comparable(record: dict[str, Any]) -> dict[str, Any]:
    """A step record without wall-clock figures (seconds differ from run to run)."""
    info = record.get("info")
    if info:
        record = {**record, "info": {k: v for k, v in info.items() if not k.endswith("_s")}}
    return record


def check_backend(make: Callable[[], Backend], instances: Sequence[TaskInstance], *, steps: int = 3,
                  seed: int = 0) -> CheckReport:
    """Run every rule (RULES) on backends from `make` (called once per probe: fresh worlds) over
    `instances`; `steps` oracle actions are replayed twice for determinism. Raises
    ConformanceError naming the first broken rule."""
    return _Checker(make, instances, steps, seed).run()


def conformance_instances(count: int, domain: str = "indoor", seed: int = 101) -> list[TaskInstance]:
    """`count` baseline instances compiled in-process (families in turn, seeds seed, seed+1, ...),
    the scenes `robograph check-backend --scenes N` uses."""
    from robograph.compiler.assets import load_assets
    from robograph.compiler.compile import compile_scene

    assets = load_assets()
    families = sorted({s.family for s in assets.scenes if s.domain == domain})
    if not families:
        raise RoboGraphError(f"no family has a {domain!r} layout")
    return [compile_scene(assets, families[k % len(families)], domain, seed + k).baseline for k in range(count)]
