"""Benchmark the symbolic episode runtime: environment steps per second and view projection time.

The instance is the built-in demo desk grown to 20 nodes (the paper's scenes average 18.4) with
three interventions scheduled. `steps_per_second` is measured with a seeded random policy that
grounds its arguments in the current view (a mix of successes and typed failures, like a weak
agent); `valid_steps_per_second` with a policy whose every action passes its preconditions, so
every step rewrites the graph. Every step projects a fresh view, as the runtime always does. Only
time spent inside `Episode.reset/step` counts; the policy's own time is excluded.

    python scripts/bench_runtime.py [--steps N] [--seed S] [--instance FILE] [--profile] [--json]

With --json the last line is one JSON object of the figures (`steps_per_second`, ...).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import time
from collections import Counter
from typing import Any

from robograph.actions import CATALOG, Action, check
from robograph.gym_env import demo_instance_path
from robograph.instance import TaskInstance, load_instance, read_data
from robograph.runtime import Episode
from robograph.view import compute_view, observation
from robograph_backends.symbolic import SymbolicBackend

EXTRA_NODES = [
    {"id": "shelf", "name": "shelf", "category": "shelf", "kind": "furniture", "affordances": ["SURFACE"]},
    {"id": "mug", "name": "mug", "category": "mug", "affordances": ["GRABBABLE", "MOVABLE"]},
    {"id": "tin", "name": "tin box", "category": "box", "affordances": ["CONTAINER", "OPENABLE"],
     "capacity": 2, "attrs": {"open": False}},
    {"id": "coin", "name": "coin", "category": "coin", "affordances": ["GRABBABLE", "MOVABLE"]},
]
EXTRA_EDGES = [
    {"from": "mug", "relation": "ON", "to": "shelf"},
    {"from": "tin", "relation": "ON", "to": "shelf"},
    {"from": "coin", "relation": "INSIDE", "to": "tin"},
    {"from": "mug", "relation": "OCCLUDES", "to": "tin"},
]
EVENTS = [
    {"id": "fail", "kind": "I1", "min_step": 5, "params": {"actions": ["putin", "open"]}},
    {"id": "rollback", "kind": "I3", "min_step": 0, "params": {"staging": ["shelf"]}},
    {"id": "hide", "kind": "I5", "min_step": 10, "params": {"pairs": [["book", "pencil_case"]]}},
]


def bench_instance() -> TaskInstance:
    """The demo desk plus a shelf, a mug hiding a closed tin and a coin in the tin: 20 nodes."""
    data: dict[str, Any] = json.loads(json.dumps(read_data(demo_instance_path())))
    data["graph"]["nodes"] += EXTRA_NODES
    data["graph"]["edges"] += EXTRA_EDGES
    data["goal"] = [*data["goal"], "INSIDE(coin, pencil_case)"]
    data["events"] = EVENTS
    data["id"] = "bench-desk-20"
    return TaskInstance.from_json(data, source="bench")


def random_action(rng: random.Random, episode: Episode, names: tuple[str, ...]) -> Action:
    name = rng.choice(names)
    ids = sorted(episode.view.visible)
    return Action(name, tuple(rng.choice(ids) for _ in CATALOG[name].parameters))


def valid_action(rng: random.Random, episode: Episode, names: tuple[str, ...]) -> Action:
    """A random action whose preconditions hold (rejection sampling, outside the timed region):
    every timed step then changes the graph, the expensive case for the runtime."""
    for _ in range(200):
        action = random_action(rng, episode, names)
        if action.name != "observe" and check(episode.graph, episode.view, action, names) is None:
            return action
    return Action("observe")


POLICIES = {"random": random_action, "valid": valid_action}


def run_steps(instance: TaskInstance, steps: int, seed: int, policy: str = "random") -> dict[str, Any]:
    choose = POLICIES[policy]
    rng = random.Random(seed)
    episode = Episode(instance, SymbolicBackend())
    # the policy stops rarely so episodes run long, as a real rollout does
    names = tuple(n for n in instance.actions if n != "stop")
    outcomes: Counter[str] = Counter()
    episodes = 0
    env_seconds = 0.0
    t0 = time.process_time()
    episode.reset(seed)
    env_seconds += time.process_time() - t0
    for _ in range(steps):
        if episode.done:
            t0 = time.process_time()
            episode.reset(seed + episodes)
            env_seconds += time.process_time() - t0
            episodes += 1
        action = choose(rng, episode, names) if rng.random() > 0.01 else Action("stop")
        t0 = time.process_time()
        rec = episode.step(action)
        env_seconds += time.process_time() - t0
        outcomes[rec.failure_type or "success"] += 1
    return {
        "steps": steps,
        "episodes": episodes + 1,
        "env_seconds": env_seconds,
        "steps_per_second": steps / env_seconds,
        "success_share": outcomes["success"] / steps,
        "events_fired": len(episode.fired),
        "top_outcomes": dict(outcomes.most_common(6)),
    }


def time_view(instance: TaskInstance, repeats: int) -> dict[str, float]:
    """Projection cost on a mid-episode state (drawers open, book aside)."""
    episode = Episode(instance, SymbolicBackend())
    episode.reset(0)
    for text in ("open drawer_2", "open pencil_case", "move_aside book", "move_aside mug"):
        episode.step(Action.parse(text))
    graph = episode.graph
    # compute_view keeps the view with the graph object: project a fresh successor each time
    # (`derive()` shares the graph's indexes, as a rewrite's result does)
    fresh = [graph.derive() for _ in range(repeats)]
    t0 = time.process_time()
    for g in fresh:
        view = compute_view(g)
    view_us = (time.process_time() - t0) / repeats * 1e6
    t0 = time.process_time()
    for _ in range(repeats):
        observation(graph, view)
    obs_us = (time.process_time() - t0) / repeats * 1e6
    return {"view_us": view_us, "observation_us": obs_us, "visible_nodes": len(view.visible)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000, help="environment steps to time (default 50000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--instance", help="instance file (default: the 20-node bench desk)")
    parser.add_argument("--profile", action="store_true", help="print the 15 hottest functions (cProfile)")
    parser.add_argument("--json", action="store_true", help="end with one JSON object of the figures")
    args = parser.parse_args(argv)

    instance = load_instance(args.instance) if args.instance else bench_instance()
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
    figures = run_steps(instance, args.steps, args.seed)
    if args.profile:
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    valid = run_steps(instance, max(1, args.steps // 5), args.seed, policy="valid")
    figures["valid_steps_per_second"] = valid["steps_per_second"]
    figures["valid_success_share"] = valid["success_share"]
    figures.update(time_view(instance, repeats=max(1000, args.steps // 10)))
    figures["nodes"] = len(instance.graph.nodes)
    figures["edges"] = len(instance.graph.edges)
    figures["instance"] = instance.id

    print(f"instance {instance.id}: {figures['nodes']} nodes, {figures['edges']} edges")
    print(f"steps/s            {figures['steps_per_second']:,.0f}  ({args.steps} steps, "
          f"{figures['episodes']} episodes, {figures['success_share']:.0%} successful actions)")
    print(f"steps/s, valid     {figures['valid_steps_per_second']:,.0f}  (policy whose actions pass their "
          f"preconditions: {figures['valid_success_share']:.0%} successful, rest I1)")
    print(f"view projection    {figures['view_us']:.1f} us  (compute_view, {figures['visible_nodes']} visible)")
    print(f"observation build  {figures['observation_us']:.1f} us  (Figure 11 object)")
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
