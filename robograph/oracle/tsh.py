"""The task-state horizon H = (H_maintain, H_explore, H_update) of Definition 2, operationalized.

tau* is the oracle plan from G0 (`solve`), replayed with the runtime's own view operator, so the
view V_t after each step t (V_0 = initial view) is known. Decision t (action a_t) *targets* the
non-room nodes it names plus, for a view-expanding action (open, move_aside, walk), the nodes it
newly exposes that a later decision names (the reason to explore). A decision has a state
dependency on a target n when n is not in V_{t-1} (Definition 1: not recoverable from the view):

* spatial, if n has not been in any earlier view (it must be explored);
* temporal, if n was seen in an earlier view (it must be remembered). Its span runs from the
  *acquisition* of the fact the decision relies on (Definition 2) to t: the first view V_a that
  showed n in the state (location, attributes) it still has at t - 1, not its last sighting. A
  fact that changed since an earlier sighting was re-acquired at the change. Goal facts that tau*
  breaks and later restores (the closed pencil case that is opened, then closed again) are
  temporal too, with span (restoring step - breaking step).

H_maintain = max span over temporal dependencies (0 if none).
H_explore  = max over spatially-dependent nodes of the fewest view-expanding actions (open,
             move_aside, walk) that make the node visible from G0 (breadth-first search in the
             oracle model restricted to those three actions); if no such sequence exists (e.g. only a
             close exposes it) the number of view-expanding actions tau* spends before exposing it.
H_update   = number of distinct facts invalidated by exogenous events along the oracle rollout
             that concern a node some decision targets or are goal facts, plus goal facts that I6
             events add (0 for an instance without events).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from robograph.actions import Action, effects
from robograph.facts import holds
from robograph.graph import ROOM, SceneGraph
from robograph.instance import TaskInstance
from robograph.oracle.model import SEEN, Problem
from robograph.oracle.search import Plan, solve
from robograph.rewrite import apply_all
from robograph.runtime import Episode
from robograph.view import compute_view

VIEW_EXPANDING = ("open", "move_aside", "walk")


@dataclass(frozen=True)
class TSH:
    maintain: int
    explore: int
    update: int

    def to_json(self) -> dict[str, int]:
        return {"maintain": self.maintain, "explore": self.explore, "update": self.update}


def tsh(instance: TaskInstance, plan: Plan | None = None, *, rollout: Episode | None = None) -> TSH:
    """TSH of `instance` along tau* = `plan` (default: the oracle plan from G0). H_update uses
    `rollout` (default: `oracle_rollout(instance)` when the instance has events)."""
    if plan is None:
        plan = solve(instance.graph, instance.goal, instance.actions)
    graphs = [instance.graph]
    for action in plan.actions:
        graphs.append(apply_all(graphs[-1], effects(graphs[-1], action)))
    views = [compute_view(g).visible for g in graphs]
    actions = list(plan.actions)
    rooms = {nid for nid, node in instance.graph.nodes.items() if node.kind == ROOM}

    def named(a: Action) -> set[str]:
        return {x for x in a.args if x not in rooms}

    later_named: list[set[str]] = []
    acc: set[str] = set()
    for a in reversed(actions):
        later_named.append(set(acc))
        acc |= named(a)
    later_named.reverse()

    maintain = 0
    spatial: set[str] = set()
    targeted: set[str] = set()
    for t, a in enumerate(actions, start=1):
        targets = named(a)
        if a.name in VIEW_EXPANDING:
            targets |= (views[t] - views[t - 1]) & later_named[t - 1]
        targeted |= targets
        for n in targets:
            if n in views[t - 1] or graphs[t - 1].hand_of(n) is not None:
                continue
            acquired = _acquisition(n, t, graphs, views)
            if acquired is None:
                spatial.add(n)
            else:
                maintain = max(maintain, t - acquired)
    # goal facts broken and restored by tau*
    for fact in instance.goal:
        broken_at = None
        for t in range(1, len(graphs)):
            before, after = holds(graphs[t - 1], fact), holds(graphs[t], fact)
            if before and not after:
                broken_at = t
            elif after and not before and broken_at is not None:
                maintain = max(maintain, t - broken_at)
                broken_at = None
    explore = _explore_depth(instance, spatial, actions, views)
    update = _update_count(instance, targeted, rollout)
    return TSH(maintain, explore, update)


def _acquisition(n: str, t: int, graphs: list[SceneGraph], views: list[frozenset[str]]) -> int | None:
    """First step a < t - 1 whose view showed n in the state it has at t - 1 (None if n was never
    seen before t - 1). Should n have changed out of sight since it was last seen, the last
    sighting is the best the agent could know."""
    seen = [k for k in range(t - 1) if n in views[k]]
    if not seen:
        return None
    state = _state(graphs[t - 1], n)
    start = t - 1
    while start > 0 and _state(graphs[start - 1], n) == state:
        start -= 1
    return next((k for k in seen if k >= start), seen[-1])


def _state(graph: SceneGraph, n: str) -> tuple[object, object]:
    return graph.location.get(n), graph.attrs.get(n)


def _explore_depth(instance: TaskInstance, spatial: set[str], actions: list[Action],
                   views: list[frozenset[str]]) -> int:
    if not spatial:
        return 0
    available = [a for a in VIEW_EXPANDING if a in instance.actions]
    problem = Problem.compile(instance.graph, instance.goal, available, prune=False)
    start = problem.encode(instance.graph)
    wanted = {problem.index[n] for n in spatial}
    depth_of: dict[int, int] = {}
    dist = {start: 0}
    queue = deque([start])
    while queue and len(depth_of) < len(wanted) and len(dist) < 50_000:
        s = queue.popleft()
        status = problem.view(s)
        for i in wanted - depth_of.keys():
            if status[i] >= SEEN:
                depth_of[i] = dist[s]
        for _action, nxt in problem.successors(s):
            if nxt not in dist:
                dist[nxt] = dist[s] + 1
                queue.append(nxt)
    best = 0
    for n in spatial:
        i = problem.index[n]
        if i in depth_of:
            best = max(best, depth_of[i])
        else:  # fall back to what tau* spends before n first shows up
            first = next((t for t, v in enumerate(views) if n in v), len(actions))
            best = max(best, sum(1 for a in actions[:first] if a.name in VIEW_EXPANDING))
    return best


def _update_count(instance: TaskInstance, targeted: set[str], rollout: Episode | None) -> int:
    if not instance.events:
        return 0
    if rollout is None:
        from robograph.oracle.rollout import oracle_rollout

        rollout = oracle_rollout(instance)
    goal_facts = set(instance.goal)
    for ev in rollout.fired:
        goal_facts.update(ev.goal_added)
    stale: set[str] = set()
    for ev in rollout.fired:
        targeted_now = targeted | {x for r in rollout.trace.steps for x in r.action.args}
        for fact in ev.invalidated:
            if fact in goal_facts or any(x in targeted_now for x in fact.args):
                stale.add(str(fact))
        stale.update(str(f) for f in ev.goal_added)
    return len(stale)
