"""OCCLUDES measured from the tabletop's head camera: which placed object hides which.

The geometry is the MuJoCo backend's, shared in `robograph_backends.coverage`: points on a
target's camera-facing faces are joined to the head camera, and a blocker hides the target when
its collision shapes cross more than COVER_FRACTION of that surface weight. Why ray casts
against the collision shapes rather than a segmentation render: no picture is needed (a render
costs ~0.1 s per camera on lavapipe, the casts a few ms), the answer does not depend on what a
dressed object's visual parts look like, and the robot's arms, which pass in front of everything
during a motion, are simply not among the shapes.

Viewpoint (`cameras.head_viewpoint`): the head camera moved along the base rail to straight in
front of the target, as the base drives to work there; an OCCLUDES fact is about the scene, not
about where the base happens to stand. Left out, as in the MuJoCo kitchen: points the fixed furniture hides (a
cabinet's top over a drawer's contents) count for no blocker; a target's containers and its
contents are not its blockers (a tray's walls around a muffin are no occlusion); a blocker's
moving parts (a raised lid, an open book cover) count only for the graph's attribute-conditioned
pairs ("occludes when open").

Closed enclosures. A closed lid or door is not a hider: opening it leaves the contents where
they are, so they are measured as they will be seen when it opens (the MuJoCo kitchen's rule for
its fridge). A closed drawer is different: opening it carries its contents out from under the
tier above, so what would hide them through its front panel now (the content of the tier above:
Desk-2's stapler over the pen) is not what will hide them. A target in a closed drawer is
therefore not measured (its graph edges stand, as for one nothing of which can be seen), and a
sight line that meets the walls of a drawer or box a blocker lies in (not the target's) before the
blocker is that panel's, not the blocker's (`coverage`'s shield).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from robograph.graph import FURNITURE, INSIDE, OCCLUDES, ON, SceneGraph
from robograph_backends.coverage import COVER_FRACTION, Primitives, coverage, may_cover, surface
from robograph_backends.reading import Location
from robograph_backends.sapien_tabletop.cameras import head_viewpoint
from robograph_backends.sapien_tabletop.deps import sapien_module
from robograph_backends.sapien_tabletop.sense import body_pose, joint_fraction
from robograph_backends.sapien_tabletop.world import World


def _entities(world: World, node: str, moving_parts: bool) -> list[tuple[np.ndarray, list]]:
    """(world pose 4x4, collision shapes) of each rigid part of a node's body: an articulation's
    root link, and its other links when `moving_parts`."""
    sapien = sapien_module()
    body = world.bodies[node]
    if hasattr(body, "get_links"):
        links = body.get_links()
        links = links if moving_parts else links[:1]
        return [(np.asarray(lk.entity_pose.to_transformation_matrix()), list(lk.get_collision_shapes()))
                for lk in links]
    rigid = body.find_component_by_type(sapien.physx.PhysxRigidBaseComponent)
    return [(np.asarray(body.get_pose().to_transformation_matrix()), list(rigid.get_collision_shapes()))]


def primitives(world: World, nodes: Iterable[str], *, moving_parts: bool = True) -> Primitives:
    """The collision boxes and cylinders of `nodes`' bodies in the world frame (SAPIEN's
    cylinders lie along their shape frame's x)."""
    sapien = sapien_module()
    boxes: list = []
    cylinders: list = []
    for node in nodes:
        for T, shapes in _entities(world, node, moving_parts):
            for sh in shapes:
                if not any(sh.get_collision_groups()):
                    continue  # collides with nothing: a lid's counterweight (mass only) or a welded body
                L = np.asarray(sh.get_local_pose().to_transformation_matrix())
                W = T @ L
                if isinstance(sh, sapien.physx.PhysxCollisionShapeBox):
                    boxes.append((W[:3, 3], W[:3, :3], np.asarray(sh.half_size, dtype=float)))
                elif isinstance(sh, sapien.physx.PhysxCollisionShapeCylinder):
                    cylinders.append((W[:3, 3], W[:3, 0], float(sh.radius), float(sh.half_length)))
    return Primitives.of(boxes, cylinders)


def static_primitives(world: World, expected: SceneGraph) -> Primitives:
    """The fixed furniture: static actors and the root links of furniture articulations (their
    drawers, doors and lids move, so they hide nothing here: what a closed door hides is
    measured as it will be seen when the door opens)."""
    furniture = [n for n in sorted(world.bodies) if n in expected.nodes and expected.nodes[n].kind == FURNITURE]
    return primitives(world, furniture, moving_parts=False)


def _hiders(world: World, static: Primitives, chain: list[str]) -> Primitives:
    """What hides parts of a target whatever the blockers do: the fixed furniture and the rigid
    bodies (walls, not lids) of the movable containers it is in (a lip balm in a bag is hidden
    by the bag's walls, not by the box in front of the bag)."""
    movable = [n for n in chain if n in world.bodies and world.layout.placements[n].container
               and n in world.graph_nodes and world.graph_nodes[n].kind != FURNITURE]
    if not movable:
        return static
    own = primitives(world, movable, moving_parts=False)
    return Primitives(*(np.concatenate([a, b]) for a, b in zip(_fields(static), _fields(own), strict=True)))


def _closed_drawer(world: World, chain: list[str]) -> bool:
    """Whether a node lies in a drawer that is closed (see the module docstring)."""
    return any(n in world.joints and world.layout.placements[n].app.articulation == "drawer"
               and joint_fraction(world, n) <= 0.5 for n in chain)


def _shield(world: World, chain: list[str], target_chain: list[str]) -> Primitives:
    """The walls around a blocker that are not around its target: the sliding shells of the
    drawers and the walls (not lids) of the movable boxes the blocker lies in."""
    boxes: list = []
    cylinders: list = []
    for n in chain:
        if n in target_chain or n not in world.bodies or not world.layout.placements[n].container:
            continue
        if world.layout.placements[n].app.articulation == "drawer":
            part = primitives(world, [n])  # the drawer's root has no shapes: its shell is the link
        elif world.graph_nodes.get(n) is not None and world.graph_nodes[n].kind != FURNITURE:
            part = primitives(world, [n], moving_parts=False)
        else:
            continue
        boxes += [(c, m, h) for c, m, h in zip(part.box_centres, part.box_mats, part.box_halves, strict=True)]
        cylinders += [(c, a, r, h) for c, a, r, h in zip(part.cyl_centres, part.cyl_axes, part.cyl_radii,
                                                         part.cyl_halves, strict=True)]
    return Primitives.of(boxes, cylinders)


def _fields(p: Primitives) -> tuple[np.ndarray, ...]:
    return (p.box_centres, p.box_mats, p.box_halves, p.cyl_centres, p.cyl_axes, p.cyl_radii, p.cyl_halves)


def _location_of(graph: SceneGraph, node: str) -> Location | None:
    edge = graph.location.get(node)
    return (edge.rel, edge.dst) if edge is not None else None


def half_of(world: World, node: str) -> np.ndarray:
    return np.asarray(world.layout.placements[node].size, dtype=float) / 2


def _chain(world: World, locations: Mapping[str, Location], node: str) -> list[str]:
    """Where a node stands, upwards: measured locations of objects, then the layout's furniture."""
    out: list[str] = []
    cur = node
    while True:
        loc = locations.get(cur)
        if loc is not None:
            if loc[0] not in (INSIDE, ON):
                return out
            cur = loc[1]
        else:
            pl = world.layout.placements.get(cur)
            if pl is None or pl.parent is None:
                return out
            cur = pl.parent
        if cur in out:
            return out
        out.append(cur)


def covered_pairs(world: World, expected: SceneGraph, locations: Mapping[str, Location],
                  placed: Iterable[str], involving: str | None = None) -> dict[tuple[str, str], float]:
    """(blocker, target) -> coverage of every pair of placed objects the head camera sees covered
    (more than COVER_FRACTION). A target nothing of which can be seen (fixed furniture or its
    container's walls hide all of it) is not measured: its active edges in `expected` are
    returned as they are, with coverage NaN. `involving`: only the pairs with this node (realize
    trying spots for it)."""
    placed = sorted(placed)
    if involving is not None and involving not in placed:
        return {}
    chains = {n: _chain(world, locations, n) for n in placed}
    conditioned = {(e.src, e.dst) for e in expected.edges_of(OCCLUDES) if e.when}
    static = static_primitives(world, expected)
    out: dict[tuple[str, str], float] = {}
    for target in placed:
        candidates = placed if involving in (None, target) else [involving]
        T = body_pose(world, target)
        t_half = half_of(world, target)
        cam = head_viewpoint(float(T[1, 3]))
        unrelated = set(chains[target]) | {n for n, ch in chains.items() if target in ch}
        near = [b for b in candidates if b != target and b not in unrelated
                and may_cover(cam, body_pose(world, b)[:3, 3], float(np.linalg.norm(half_of(world, b))),
                              T[:3, 3], float(np.linalg.norm(t_half)))]
        if not near and involving is not None:
            continue
        surf = surface(primitives(world, [target]), T[:3, 3], T[:3, :3], t_half, cam,
                       _hiders(world, static, chains[target]))
        if float(surf.weights.sum()) <= 0.0 or _closed_drawer(world, chains[target]):
            # nothing of it can be seen whatever the blockers do (on the floor of a deep bin, in
            # a closed drawer): no measurement, so the graph's active edges to it stand
            for e in expected.edges_of(OCCLUDES):
                if e.dst == target and e.src in placed and expected.occlusion_active(e):
                    out[(e.src, target)] = float("nan")
            continue
        for b in near:
            share = coverage(primitives(world, [b], moving_parts=(b, target) in conditioned), cam, surf,
                             _shield(world, chains[b], chains[target]))
            if share > COVER_FRACTION:
                out[(b, target)] = share
    return out


def pair_coverage(world: World, expected: SceneGraph, blocker: str, target: str) -> float:
    """How much of `target` `blocker` hides from the head camera (0..1), whatever stands between."""
    T = body_pose(world, target)
    conditioned = any(e.when and e.src == blocker and e.dst == target for e in expected.edges_of(OCCLUDES))
    cam = head_viewpoint(float(T[1, 3]))
    locations = {n: loc for n in expected.nodes if (loc := _location_of(expected, n)) is not None}
    chain = _chain(world, locations, target)
    surf = surface(primitives(world, [target]), T[:3, 3], T[:3, :3], half_of(world, target), cam,
                   _hiders(world, static_primitives(world, expected), chain))
    return coverage(primitives(world, [blocker], moving_parts=conditioned), cam, surf,
                    _shield(world, _chain(world, locations, blocker), chain))
