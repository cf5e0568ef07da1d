"""Compile one scene: family + domain + seed (+ Table 8 targets) -> verified baseline and six
intervention instances.

Retry loop (deterministic): attempt k uses the derived seed `derive_seed(seed, k)`. A recipe is
sampled for the target N_g (exact) and L_o (predicted); the exact oracle measures L_o on G0 within
an expansion budget (scenes it cannot solve quickly are resampled); a miss by d is corrected by
removing/adding d occluders (each costs exactly one move_aside) and re-measured; a structural
miss feeds back as a bias into the next sample. The accepted scene must then pass the reference
rollouts: the oracle solves the baseline and each condition, and each condition's intervention
fires on its rollout. If no attempt hits L_o exactly, the closest verified scene is kept.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass, field
from typing import Any

from robograph.actions import catalog_for
from robograph.compiler.assets import Assets
from robograph.compiler.errors import CompileError
from robograph.compiler.family import Layout
from robograph.compiler.interventions import build_events
from robograph.compiler.recipe import Recipe, sample_recipe, with_occluders
from robograph.compiler.scene import SceneRoles, build_scene
from robograph.compiler.stats import scene_stats
from robograph.events import CONDITIONS, INTERVENTIONS, EventSpec
from robograph.facts import Goal
from robograph.graph import SceneGraph
from robograph.instance import DEFAULT_STEP_BUDGET, TaskInstance, validate_data
from robograph.oracle import OracleError, Plan, solve
from robograph.oracle.distance import action_distance
from robograph.oracle.rollout import oracle_rollout
from robograph.oracle.tsh import tsh
from robograph.view import navigation_enabled

SOLVE_BUDGET = 2_500  # oracle expansions allowed on G0; harder samples are resampled
ROLLOUT_BUDGET = 60_000
MAX_ATTEMPTS = 60
MAX_ADJUST = 3


def derive_seed(seed: int, *salt: object) -> int:
    """A stable 31-bit seed from a seed and any salt (scene id, attempt number)."""
    text = ":".join([str(seed), *map(str, salt)])
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) & 0x7FFFFFFF


@dataclass
class CompiledScene:
    scene_id: str
    family: str
    domain: str
    seed: int
    instances: dict[str, TaskInstance]
    plan: Plan
    stats: dict[str, Any]
    oracle_seconds: float = field(default=0.0, compare=False)
    compile_seconds: float = field(default=0.0, compare=False)
    attempts: int = 0

    @property
    def baseline(self) -> TaskInstance:
        return self.instances["baseline"]


@dataclass
class _Candidate:
    recipe: Recipe
    graph: SceneGraph
    goal: Goal
    roles: SceneRoles
    plan: Plan
    seed: int


class _Clock:
    """Accumulates the seconds spent inside the oracle (solve, rollouts, C_distance, TSH)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._t0 = 0.0

    def __enter__(self) -> _Clock:
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds += time.perf_counter() - self._t0


def _measure(recipe: Recipe, assets: Assets, actions: tuple[str, ...], clock: _Clock) -> tuple[SceneGraph, Goal, SceneRoles, Plan] | None:
    graph, goal, roles = build_scene(recipe, assets)
    try:
        with clock:
            plan = solve(graph, goal, actions, max_expansions=SOLVE_BUDGET)
    except OracleError:
        return None
    return graph, goal, roles, plan


def compile_scene(
    assets: Assets,
    family: str,
    domain: str,
    seed: int,
    *,
    scene_id: str | None = None,
    variant: str | None = None,
    subgoals: int | None = None,
    oracle_length: int | None = None,
    i6_mode: str = "inherit",
    max_attempts: int = MAX_ATTEMPTS,
) -> CompiledScene:
    spec = assets.family(family)
    layout = spec.layout(domain, variant)
    target_rng = random.Random(derive_seed(seed, "targets"))
    n_goals = subgoals if subgoals is not None else layout.subgoals
    length = oracle_length if oracle_length is not None else target_rng.randint(*layout.oracle_length)
    sid = scene_id or f"{spec.scene_prefix}-{domain[0].upper()}s{seed}"
    actions = catalog_for(bool(layout.rooms))
    started = time.perf_counter()
    clock = _Clock()
    bias = 0
    best: tuple[int, int, _Candidate, dict[str, TaskInstance]] | None = None
    for attempt in range(max_attempts):
        s = derive_seed(seed, sid, attempt)
        rng = random.Random(s)
        recipe = sample_recipe(layout, assets, rng, n_goals, length, bias=bias, capacity_mode=i6_mode == "capacity")
        if recipe is None:
            bias = 0
            continue
        cand = None
        for adjust in range(MAX_ADJUST):
            measured = _measure(recipe, assets, actions, clock)
            if measured is None:
                break
            graph, goal, roles, plan = measured
            miss = plan.length - length
            cand = _Candidate(recipe, graph, goal, roles, plan, s)
            if miss == 0:
                break
            bias = plan.length - recipe.predicted_length
            adjusted = with_occluders(recipe, recipe.occluders - miss, assets, random.Random(derive_seed(s, "clutter", adjust)))
            if adjusted is None:
                break
            recipe = adjusted
        if cand is None:
            continue
        miss = abs(cand.plan.length - length)
        if best is not None and miss >= best[0]:
            continue
        instances = _conditions(cand, spec.task, family, domain, sid, layout, assets, i6_mode, length, n_goals, clock)
        if instances is None:
            continue
        best = (miss, attempt, cand, instances)
        if miss == 0:
            break
    if best is None:
        raise CompileError(f"{sid}: no verified {family}/{domain} scene with N_g={n_goals}, L_o={length} in {max_attempts} attempts")
    _, attempt, cand, instances = best
    stats = scene_stats(cand.graph, cand.goal, cand.plan.length, instances["baseline"].metadata["action_distance"])
    return CompiledScene(sid, family, domain, cand.seed, instances, cand.plan, stats,
                         clock.seconds, time.perf_counter() - started, attempt + 1)


def _conditions(
    cand: _Candidate,
    task: str,
    family: str,
    domain: str,
    sid: str,
    layout: Layout,
    assets: Assets,
    i6_mode: str,
    target_length: int,
    target_goals: int,
    clock: _Clock,
) -> dict[str, TaskInstance] | None:
    """Baseline + six conditions, each verified by an oracle reference rollout; None = reject."""
    rng = random.Random(derive_seed(cand.seed, "events"))
    plan = list(cand.plan.actions)
    specs = build_events(cand.graph, cand.goal, plan, layout, assets, cand.roles, i6_mode, rng)
    if specs is None:
        return None
    actions = catalog_for(navigation_enabled(cand.graph))
    with clock:
        distance = action_distance(cand.graph, cand.goal, actions)
    meta: dict[str, Any] = {
        "scene_id": sid,
        "family": family,
        "domain": domain,
        "variant": layout.variant,
        "seed": cand.seed,
        "subgoals": len(cand.goal),
        "target_subgoals": target_goals,
        "target_oracle_length": target_length,
        "oracle_length": cand.plan.length,
        "oracle_plan": [str(a) for a in plan],
        "action_distance": distance,
    }
    out: dict[str, TaskInstance] = {}
    for cond in CONDITIONS:
        events: tuple[EventSpec, ...] = () if cond == "baseline" else (specs[cond],)
        inst = TaskInstance(
            id=f"{sid}__{cond}", task=task, task_type=family, settings=(domain,), graph=cand.graph,
            goal=cand.goal, actions=actions, events=events, step_budget=DEFAULT_STEP_BUDGET,
            metadata={**meta, "condition": cond},
        )
        try:
            with clock:
                episode = oracle_rollout(inst, max_expansions=ROLLOUT_BUDGET, plan=cand.plan.actions)
        except OracleError:
            return None
        fired = sorted({f.kind for f in episode.fired})
        if not episode.success or (cond in INTERVENTIONS and cond not in fired):
            return None
        with clock:
            horizon = tsh(inst, cand.plan, rollout=episode)
        rollout = {"steps": episode.t, "success": episode.success, "fired": fired,
                   "goal_size": len(episode.goal)}
        inst = inst.with_events(events, tsh=horizon.to_json(), reference_rollout=rollout)
        if validate_data(inst.to_json(), "episode"):
            return None
        out[cond] = inst
    return out
