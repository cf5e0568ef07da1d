"""The six intervention conditions of Table 4 as EventSpecs chosen for one compiled scene.

Each condition is the baseline plus exactly one EventSpec. Parameters are chosen from the
baseline oracle plan tau* so that the event is due on the reference rollout (the compiler then
checks that it actually fired and that the oracle still succeeds):
  I1 {actions, min_step}        action types tau* executes at or after min_step
  I2 {attributes}, min_step     the attribute of a reversible action tau* executes at min_step
  I3 {staging}                  non-goal staging surfaces in each room
  I4 {containers}               decoys first, then the other open destination containers
  I5 {pairs}, min_step          movable non-goal blockers x goal objects tau* places after min_step
  I6 inherit {source_fact, node, staging, goal} | capacity {container, node, staging, goal}
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from robograph.actions import CATALOG, Action, effects
from robograph.compiler.assets import Assets
from robograph.compiler.family import Layout
from robograph.compiler.recipe import room_of
from robograph.compiler.scene import SceneRoles, make_node
from robograph.events import REVERSIBLE_ACTIONS, EventSpec
from robograph.facts import Fact, Goal, holds
from robograph.graph import CONTAINER, SURFACE, SceneGraph
from robograph.rewrite import apply_all


def achieved_at(graph: SceneGraph, plan: Sequence[Action], facts: Sequence[Fact]) -> dict[Fact, int]:
    """Step (1-based) at which tau* first makes each fact hold (facts true in G0 are skipped)."""
    out: dict[Fact, int] = {}
    g = graph
    for t, action in enumerate(plan, start=1):
        g = apply_all(g, effects(g, action))
        for f in facts:
            if f not in out and holds(g, f) and not holds(graph, f):
                out[f] = t
    return out


def i1(plan: Sequence[Action], rng: random.Random) -> EventSpec:
    n = len(plan)
    min_step = 1 + rng.randrange(max(1, n // 3))
    late = sorted({a.name for a in plan[min_step - 1:] if CATALOG[a.name].failure_injectable})
    if not late:
        min_step = 1
        late = sorted({a.name for a in plan if CATALOG[a.name].failure_injectable})
    names = rng.sample(late, min(2, len(late)))
    return EventSpec("I1", "I1", min_step, {"actions": sorted(names)})


def i2(plan: Sequence[Action], rng: random.Random) -> EventSpec | None:
    steps = [t for t, a in enumerate(plan, start=1) if a.name in REVERSIBLE_ACTIONS]
    if not steps:
        return None
    t = rng.choice(steps)
    return EventSpec("I2", "I2", t, {"attributes": [REVERSIBLE_ACTIONS[plan[t - 1].name]]})


def i3(roles: SceneRoles) -> EventSpec:
    return EventSpec("I3", "I3", 0, {"staging": list(roles.staging)})


def i4(graph: SceneGraph, roles: SceneRoles) -> EventSpec:
    containers = list(roles.decoys)
    containers += [d for d in roles.destinations if graph.nodes[d].has(CONTAINER) and d not in containers]
    return EventSpec("I4", "I4", 0, {"containers": containers})


def i5(graph: SceneGraph, plan: Sequence[Action], roles: SceneRoles, placed: Mapping[Fact, int], rng: random.Random) -> EventSpec | None:
    if not roles.blockers:
        return None
    n = len(plan)
    min_step = max(2, n // 3 + rng.randrange(max(1, n // 3)))
    late = [f.args[0] for f, t in sorted(placed.items(), key=lambda kv: (kv[1], str(kv[0]))) if t > min_step]
    targets = late + [o for o in roles.goal_objects if o not in late and o not in {f.args[0] for f in placed}]
    if not targets:
        return None
    pairs: list[list[str]] = []
    for t in targets:
        for b in sorted(roles.blockers, key=lambda b: (graph.room_of(b) != graph.room_of(t), b)):
            pairs.append([b, t])
    return EventSpec("I5", "I5", min_step, {"pairs": pairs[:24]})


def i6(
    graph: SceneGraph,
    goal: Goal,
    layout: Layout,
    assets: Assets,
    roles: SceneRoles,
    placed: Mapping[Fact, int],
    mode: str,
    plan_length: int,
    rng: random.Random,
) -> EventSpec | None:
    used = {n.category for n in graph.nodes.values()}
    free = [c for c in layout.i6_categories if c not in used] or list(layout.i6_categories)
    if mode == "capacity" and roles.capacity_container and roles.overflow is not None:
        cat = rng.choice(free)
        node = _node(assets, graph, cat)
        dest = roles.overflow.args[1]
        fact = Fact(roles.overflow.pred, (node["id"], dest))
        staging = _staging_near(layout, roles, dest, rng)
        params = {"mode": "capacity", "container": roles.capacity_container, "node": node,
                  "staging": staging, "goal": [str(fact)]}
        return EventSpec("I6", "I6", 0, params)
    if not placed:
        return None
    # the source: a placement tau* achieves around the middle of the episode
    ranked = sorted(placed.items(), key=lambda kv: (abs(kv[1] - plan_length // 2), str(kv[0])))
    source = ranked[0][0]
    dest = source.args[1]
    templates = {d.target: d.categories for d in layout.destinations}  # fixture goals have none
    fits = [c for c in free if c in templates.get(dest, ())]
    cat = rng.choice(fits or free)
    node = _node(assets, graph, cat)
    fact = Fact(source.pred, (node["id"], dest))
    staging = _staging_near(layout, roles, dest, rng)
    params = {"mode": "inherit", "source_fact": str(source), "node": node, "staging": staging, "goal": [str(fact)]}
    return EventSpec("I6", "I6", 0, params)


def _node(assets: Assets, graph: SceneGraph, category: str) -> dict[str, object]:
    obj = assets.object(category)
    nid, k = f"new_{category}", 1
    while nid in graph.nodes:
        k += 1
        nid = f"new_{category}_{k}"
    return make_node(nid, f"new {obj.display_name}", obj).to_json()


def _staging_near(layout: Layout, roles: SceneRoles, dest: str, rng: random.Random) -> str:
    room = room_of(layout, dest) if layout.rooms else None
    same = [s for s in roles.staging if (room_of(layout, s) if layout.rooms else None) == room]
    return (same or list(roles.staging))[0]


def build_events(
    graph: SceneGraph,
    goal: Goal,
    plan: Sequence[Action],
    layout: Layout,
    assets: Assets,
    roles: SceneRoles,
    i6_mode: str,
    rng: random.Random,
) -> dict[str, EventSpec] | None:
    """One EventSpec per intervention, or None when the scene cannot host all six."""
    placed = achieved_at(graph, plan, roles.placements)
    specs = {
        "I1": i1(plan, rng),
        "I2": i2(plan, rng),
        "I3": i3(roles),
        "I4": i4(graph, roles),
        "I5": i5(graph, plan, roles, placed, rng),
        "I6": i6(graph, goal, layout, assets, roles, placed, i6_mode, len(plan), rng),
    }
    if any(v is None for v in specs.values()):
        return None
    if not any(graph.nodes[s].has(SURFACE) for s in roles.staging):
        return None
    return {k: v for k, v in specs.items() if v is not None}
