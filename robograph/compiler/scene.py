"""Realize a recipe as G0: nodes (with catalog props for the physical builders), location edges,
occlusion edges, PART_OF and ADJACENT edges, capacities and the goal; plus the roles the event
builder needs (`SceneRoles`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from robograph.compiler.assets import Assets, ObjectType
from robograph.compiler.recipe import (
    ASSEMBLY_ROLE,
    DISTRACTOR,
    MOVING,
    OCCLUDER,
    PART_ROLE,
    PREPLACED,
    PRESSABLE_ROLE,
    Recipe,
    movable_fixtures,
)
from robograph.facts import Fact, Goal
from robograph.graph import (
    ADJACENT,
    IN_ROOM,
    OCCLUDES,
    OPENABLE,
    PART_OF,
    ROBOT,
    ROBOT_ID,
    ROOM,
    Edge,
    Node,
    SceneGraph,
)

CAPACITY_SLACK = 2  # room for an I6 object and an I4/I5 relocation on top of the goal load


@dataclass(frozen=True)
class SceneRoles:
    """What the intervention builder needs to know about a compiled scene."""

    placements: tuple[Fact, ...]  # goal placements the agent must achieve (moving items, assemblies)
    blockers: tuple[str, ...]  # movable non-goal objects (occluders, distractors): I5 blockers
    goal_objects: tuple[str, ...]  # objects with a placement goal (I5 targets)
    staging: tuple[str, ...]
    decoys: tuple[str, ...]
    destinations: tuple[str, ...]
    capacity_container: str | None
    overflow: Fact | None  # capacity-mode I6: where the added object must go instead


def props(obj: ObjectType, rgba: tuple[float, ...] | None = None) -> dict[str, Any]:
    return {
        "size": list(obj.size),
        "rgba": list(rgba if rgba is not None else obj.rgba),
        "geometry": obj.geometry,
        "articulation": obj.articulation,
    }


def make_node(nid: str, name: str, obj: ObjectType, rgba: tuple[float, ...] | None = None, capacity: int | None = None) -> Node:
    return Node(
        id=nid,
        name=name,
        category=obj.category,
        kind=obj.kind,
        affordances=obj.affordances,
        capacity=capacity,
        props=props(obj, rgba),
    )


def build_scene(recipe: Recipe, assets: Assets) -> tuple[SceneGraph, Goal, SceneRoles]:
    layout = recipe.layout
    nodes: list[Node] = [Node(ROBOT_ID, "robot", ROBOT, ROBOT)]
    attrs: dict[str, dict[str, Any]] = {ROBOT_ID: {}}
    edges: list[Edge] = []
    for rid, cat in layout.rooms:
        obj = assets.object(cat)
        nodes.append(Node(rid, obj.display_name, cat, ROOM, frozenset(), None, props(obj)))
    for a, b in layout.adjacent:  # adjacency is symmetric: one directed edge each way
        edges.append(Edge(a, ADJACENT, b))
        edges.append(Edge(b, ADJACENT, a))
    if layout.start_room:
        attrs[ROBOT_ID]["room"] = layout.start_room

    # capacity: enough for the G0 load and the goal load (+ slack); exactly the goal load for the
    # capacity-rule container, so the last placement fills it (I6 capacity mode)
    g0_load: dict[str, int] = {}
    final_load: dict[str, int] = {}
    for f in layout.fixtures:
        parent = f.on or f.inside
        if parent:
            g0_load[parent] = g0_load.get(parent, 0) + 1
            if not f.goal:
                final_load[parent] = final_load.get(parent, 0) + 1
        if f.goal:
            final_load[f.goal[1]] = final_load.get(f.goal[1], 0) + 1
    for it in recipe.items:
        if it.parent:
            g0_load[it.parent] = g0_load.get(it.parent, 0) + 1
            if it.role not in (MOVING, PART_ROLE):
                final_load[it.parent] = final_load.get(it.parent, 0) + 1
        if it.goal and it.role in (MOVING, ASSEMBLY_ROLE):
            final_load[it.goal[1]] = final_load.get(it.goal[1], 0) + 1
    for f in layout.fixtures:
        obj = assets.object(f.category)
        cap = None
        if obj.capacity is not None:
            need = max(g0_load.get(f.id, 0), final_load.get(f.id, 0))
            if f.id == recipe.capacity_container:
                cap = final_load.get(f.id, 0)
            else:
                cap = max(obj.capacity, need + CAPACITY_SLACK)
        nodes.append(make_node(f.id, f.name or obj.display_name, obj, None, cap))
        if obj.has(OPENABLE):
            attrs[f.id] = {"open": f.open}
        if f.room:
            edges.append(Edge(f.id, IN_ROOM, f.room))
        elif f.on:
            edges.append(Edge(f.id, "ON", f.on))
        elif f.inside:
            edges.append(Edge(f.id, "INSIDE", f.inside))
    for blocker, target, when in layout.occlusion_rules:
        edges.append(Edge(blocker, OCCLUDES, target, when))

    goal: list[str] = []
    placements: list[Fact] = []
    for it in recipe.items:
        obj = assets.object(it.category)
        nodes.append(make_node(it.id, it.name, obj, it.rgba, obj.capacity))
        if obj.has(OPENABLE):
            attrs[it.id] = {"open": False}
        if it.rel and it.parent:
            edges.append(Edge(it.id, it.rel, it.parent))
        if it.role == ASSEMBLY_ROLE:
            attrs[it.id] = {"assembled": False}
        if it.whole:
            edges.append(Edge(it.id, PART_OF, it.whole))
        if it.occludes:
            edges.append(Edge(it.id, OCCLUDES, it.occludes))
    # goal order: assemblies, placements, already-placed, presses, closed containers
    for it in recipe.items:
        if it.role == ASSEMBLY_ROLE:
            goal.append(f"ASSEMBLED({it.id})")
    for it in recipe.items:
        if it.goal and it.role in (ASSEMBLY_ROLE, MOVING):
            fact = Fact(it.goal[0], (it.id, it.goal[1]))
            goal.append(str(fact))
            placements.append(fact)
    for f in layout.fixtures:
        if f.goal:
            fact = Fact(f.goal[0], (f.id, f.goal[1]))
            goal.append(str(fact))
            placements.append(fact)
    for f in layout.fixtures:
        if f.keep and (f.on or f.inside):
            goal.append(f"{'ON' if f.on else 'INSIDE'}({f.id}, {f.on or f.inside})")
    for it in recipe.items:
        if it.role == PREPLACED and it.goal:
            goal.append(f"{it.goal[0]}({it.id}, {it.goal[1]})")
    for it in recipe.items:
        if it.role == PRESSABLE_ROLE:
            goal.append(f"PRESSED({it.id})")
    for f in layout.fixtures:
        if f.closed_goal:
            goal.append(f"CLOSED({f.id})")

    graph = SceneGraph.build(nodes, edges, attrs)
    overflow = None
    if recipe.capacity_container:
        for d in layout.destinations:
            if d.target != recipe.capacity_container:
                overflow = Fact(d.relation, ("$new", d.target))
                break
    roles = SceneRoles(
        placements=tuple(placements),
        blockers=(*(i.id for i in recipe.items if i.role in (OCCLUDER, DISTRACTOR)), *movable_fixtures(layout, assets)),
        goal_objects=tuple(i.id for i in recipe.items if i.role in (MOVING, PREPLACED, ASSEMBLY_ROLE)),
        staging=layout.staging,
        decoys=layout.decoys,
        destinations=tuple(d.target for d in layout.destinations),
        capacity_container=recipe.capacity_container,
        overflow=overflow,
    )
    return graph, Goal.of(goal), roles
