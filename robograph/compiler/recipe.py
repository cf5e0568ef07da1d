"""Recipe sampling: decide which objects play which role in a scene so that the goal has exactly
N_g facts and the *predicted* oracle length equals the target L_o.

Cost model (the exact oracle has the final word; `compile.py` corrects the prediction with the
measured difference and by adding/removing occluders, each worth exactly one `move_aside`):
  moving item                  1 goal  2 actions (grab, put)
  assembly (two parts)         2 goals 3 actions (attach, grab, put)
  pressable                    1 goal  1 action
  already-placed item          1 goal  0 actions
  closable that must be opened 1 goal if it has a CLOSED goal; 1 action (open) + 1 (close) if so
  closable left alone          1 goal if it has a CLOSED goal; 0 actions
  occluder of a needed item    0 goals 1 action (move_aside)
  indoor                       + walks: two per trip between rooms (two hands, two items a trip)
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass, replace

from robograph.compiler.assets import Assets, ObjectType
from robograph.compiler.family import Layout
from robograph.graph import CONTAINER, INSIDE, MOVABLE, ON, OPENABLE, SURFACE

MOVING = "moving"
PREPLACED = "preplaced"
ASSEMBLY_ROLE = "assembly"
PART_ROLE = "part"
PRESSABLE_ROLE = "pressable"
OCCLUDER = "occluder"
DISTRACTOR = "distractor"
FIXTURE_GOAL = "fixture"


@dataclass(frozen=True)
class ItemSpec:
    """One non-fixture node of the scene. `rel`/`parent` is its G0 location (None for an
    unassembled assembly); `goal` its placement goal (relation, target); `whole` the assembly a
    part belongs to; `occludes` the node an occluder hides."""

    id: str
    category: str
    name: str
    rgba: tuple[float, ...]
    role: str
    rel: str | None
    parent: str | None
    goal: tuple[str, str] | None = None
    whole: str | None = None
    occludes: str | None = None


@dataclass(frozen=True)
class Recipe:
    layout: Layout
    items: tuple[ItemSpec, ...]
    involved: frozenset[str]
    base_length: int  # predicted length without occluders
    occluders: int
    distractors: int
    capacity_container: str | None
    occluder_candidates: tuple[str, ...]

    @property
    def predicted_length(self) -> int:
        return self.base_length + self.occluders

    def of_role(self, *roles: str) -> list[ItemSpec]:
        return [i for i in self.items if i.role in roles]


class _Ids:
    """Readable unique ids: `concealer`, then `concealer_2`; names from catalog variants."""

    def __init__(self, taken: Iterable[str]) -> None:
        self.taken = set(taken)
        self.variant_used: dict[str, set[str]] = {}

    def new(self, category: str) -> str:
        nid, k = category, 1
        while nid in self.taken:
            k += 1
            nid = f"{category}_{k}"
        self.taken.add(nid)
        return nid

    def look(self, obj: ObjectType, rng: random.Random) -> tuple[str, tuple[float, ...]]:
        used = self.variant_used.setdefault(obj.category, set())
        free = [v for v in obj.variants if v[0] not in used]
        if free:
            name, rgba = rng.choice(free)
            used.add(name)
            return name, rgba
        n = len(used) + 1
        used.add(f"#{n}")
        return (obj.display_name if n == 1 else f"{obj.display_name} {n}"), obj.rgba


def fixture_parent(layout: Layout, fid: str) -> str | None:
    f = layout.fixture(fid)
    return f.on or f.inside


def ancestors(layout: Layout, fid: str) -> list[str]:
    out, cur = [], fixture_parent(layout, fid)
    while cur is not None and cur not in {r for r, _ in layout.rooms}:
        out.append(cur)
        cur = fixture_parent(layout, cur)
    return out


def room_of(layout: Layout, fid: str) -> str | None:
    cur: str | None = fid
    rooms = {r for r, _ in layout.rooms}
    while cur is not None:
        if cur in rooms:
            return cur
        f = layout.fixture(cur)
        if f.room:
            return f.room
        cur = f.on or f.inside
    return None


def placement_relation(obj: ObjectType) -> str:
    return INSIDE if obj.has(CONTAINER) else ON


def _closables(layout: Layout, assets: Assets) -> list[str]:
    return [f.id for f in layout.fixtures if assets.object(f.category).has(OPENABLE)]


def _hidden_at_start(layout: Layout, assets: Assets, fid: str) -> bool:
    """A fixture whose contents are hidden in G0 (closed opaque container, or inside one)."""
    for node in [fid, *ancestors(layout, fid)]:
        f = layout.fixture(node)
        if assets.object(f.category).has(OPENABLE) and not f.open:
            return True
    return False


def walk_estimate(layout: Layout, moves: list[tuple[str, str]], touched: set[str]) -> int:
    """Two walks per trip between rooms, two items per trip; two per extra room only visited."""
    if not layout.rooms:
        return 0
    start = layout.start_room
    pairs: dict[tuple[str | None, str | None], int] = {}
    for src, dst in moves:
        rs, rd = room_of(layout, src), room_of(layout, dst)
        if rs != rd:
            pairs[(rs, rd)] = pairs.get((rs, rd), 0) + 1
    walks = sum(2 * math.ceil(n / 2) for n in pairs.values())
    visited = {r for p in pairs for r in p} | {start}
    extra = {room_of(layout, t) for t in touched} - visited
    return walks + 2 * len(extra)


def sample_recipe(
    layout: Layout,
    assets: Assets,
    rng: random.Random,
    subgoals: int,
    length: int,
    *,
    bias: int = 0,
    capacity_mode: bool = False,
    draws: int = 600,
) -> Recipe | None:
    """Draw recipes until one has exactly `subgoals` goal facts and a predicted length of
    `length - bias` within the layout's occluder range. None when no draw fits."""
    for _ in range(draws):
        recipe = _draw(layout, assets, rng, subgoals, length - bias, capacity_mode)
        if recipe is not None:
            return recipe
    return None


def _draw(
    layout: Layout, assets: Assets, rng: random.Random, subgoals: int, length: int, capacity_mode: bool
) -> Recipe | None:
    r = layout.recipe
    fixture_ids = [f.id for f in layout.fixtures]
    ids = _Ids([*fixture_ids, *(rid for rid, _ in layout.rooms), "robot"])
    closables = _closables(layout, assets)
    goal_fixtures = [f for f in layout.fixtures if f.goal is not None]
    n_asm = min(rng.randint(*r["assemblies"]), len(layout.assemblies))
    n_press = min(rng.randint(*r["pressables"]), len(layout.pressables))
    n_move = rng.randint(*r["moving"])
    n_dis = rng.randint(*r["distractors"])

    items: list[ItemSpec] = []
    moves: list[tuple[str, str]] = []  # (source, destination) of everything carried
    load: dict[str, int] = {}
    part_sources = [s for s in layout.sources if not layout.fixture(s).goal]

    def source_for(dest: str | None, pool: list[str]) -> str | None:
        options = [s for s in pool if s != dest]
        rng.shuffle(options)
        for s in options:
            cap = assets.object(layout.fixture(s).category).capacity
            if cap is None or load.get(s, 0) < cap:
                load[s] = load.get(s, 0) + 1
                return s
        return None

    def rel_at(fid: str) -> str:
        return placement_relation(assets.object(layout.fixture(fid).category))

    used_cats: set[str] = set()
    # assemblies: parts start at sources, the whole has no location until attached
    for cat, dests in rng.sample(list(layout.assemblies), n_asm):
        obj = assets.object(cat)
        whole = ids.new(cat)
        name, rgba = ids.look(obj, rng)
        dest = rng.choice(list(dests))
        items.append(ItemSpec(whole, cat, name, rgba, ASSEMBLY_ROLE, None, None, (layout.destination(dest).relation, dest)))
        for part_cat in obj.parts:
            src = source_for(None, part_sources)
            if src is None:
                return None
            pobj = assets.object(part_cat)
            pid = ids.new(part_cat)
            pname, prgba = ids.look(pobj, rng)
            items.append(ItemSpec(pid, part_cat, pname, prgba, PART_ROLE, rel_at(src), src, None, whole))
            moves.append((src, dest))
        used_cats.add(cat)
    # moving items
    pool = [(d, c) for d in layout.destinations for c in d.categories]
    rng.shuffle(pool)
    chosen: list[tuple[str, str]] = []
    for d, c in pool:
        if len(chosen) == n_move:
            break
        if c in used_cats:
            continue
        chosen.append((d.target, c))
        used_cats.add(c)
    if len(chosen) < n_move:
        return None
    for dest, cat in chosen:
        src = source_for(dest, list(layout.sources))
        if src is None:
            return None
        obj = assets.object(cat)
        iid = ids.new(cat)
        name, rgba = ids.look(obj, rng)
        rel = layout.destination(dest).relation
        items.append(ItemSpec(iid, cat, name, rgba, MOVING, rel_at(src), src, (rel, dest)))
        moves.append((src, dest))
    for f in goal_fixtures:
        moves.append((fixture_parent(layout, f.id) or f.id, f.goal[1]))  # type: ignore[index]
    # pressables
    for cat, on in rng.sample(list(layout.pressables), n_press):
        obj = assets.object(cat)
        pid = ids.new(cat)
        name, rgba = ids.look(obj, rng)
        items.append(ItemSpec(pid, cat, name, rgba, PRESSABLE_ROLE, ON, on))

    # which closables must be opened
    involved: set[str] = set()
    for src, dst in moves:
        for node in (src, dst, *ancestors(layout, src), *ancestors(layout, dst)):
            if node in closables:
                involved.add(node)
    for it in items:
        if it.role == PRESSABLE_ROLE and it.parent:
            involved.update(a for a in [it.parent, *ancestors(layout, it.parent)] if a in closables)
    closed_goals = [f.id for f in layout.fixtures if f.closed_goal]
    n_keep = sum(1 for f in layout.fixtures if f.keep)
    n_goals_known = len(closed_goals) + n_keep + n_move + len(goal_fixtures) + 2 * n_asm + n_press
    n_pre = subgoals - n_goals_known
    if not r["preplaced"][0] <= n_pre <= r["preplaced"][1]:
        return None
    # already-placed items (goal facts true in G0)
    pre_pool = [(d.target, c) for d in layout.destinations if d.target in layout.preplaced for c in d.categories]
    rng.shuffle(pre_pool)
    # already-placed objects go into closed containers first: hidden in G0, they are what the agent
    # must explore (and what an I5/I3 event can disturb) without costing the oracle an action
    pre_pool.sort(key=lambda dc: not _hidden_at_start(layout, assets, dc[0]))
    pre: list[tuple[str, str]] = []
    for dest, cat in pre_pool:
        if len(pre) == n_pre:
            break
        if cat in used_cats:
            continue
        pre.append((dest, cat))
        used_cats.add(cat)
    if len(pre) < n_pre:
        return None
    for dest, cat in pre:
        obj = assets.object(cat)
        iid = ids.new(cat)
        name, rgba = ids.look(obj, rng)
        rel = layout.destination(dest).relation
        items.append(ItemSpec(iid, cat, name, rgba, PREPLACED, rel, dest, (rel, dest)))

    closed_goal_set = set(closed_goals)
    base = 2 * (n_move + len(goal_fixtures)) + 3 * n_asm + n_press
    base += sum(1 + (c in closed_goal_set) for c in involved)
    touched = set(involved) | {i.parent for i in items if i.role == PRESSABLE_ROLE and i.parent}
    base += walk_estimate(layout, moves, touched)
    n_occ = length - base
    cands = [
        i.id
        for i in items
        if i.role in (MOVING, PART_ROLE) and i.rel == ON and i.parent and not _hidden_at_start(layout, assets, i.parent)
    ]
    rng.shuffle(cands)
    if not r["occluders"][0] <= n_occ <= min(r["occluders"][1], len(cands)):
        return None
    if not involved and n_occ == 0:
        return None  # I2 needs a reversible action (open, close or move_aside) on tau*
    if not any(i.goal and i.goal[0] == INSIDE for i in items if i.role in (MOVING, ASSEMBLY_ROLE)):
        return None  # I4 needs an INSIDE placement the agent achieves
    cap_container = None
    if capacity_mode:
        cap_container = layout.capacity_container
        if not any(i.goal and i.goal[1] == cap_container for i in items if i.role in (MOVING, ASSEMBLY_ROLE)):
            return None
    if n_occ + n_dis == 0 and not movable_fixtures(layout, assets):
        n_dis = 1  # I5 needs a movable blocker
    recipe = Recipe(layout, tuple(items), frozenset(involved), base, n_occ, n_dis, cap_container, tuple(cands))
    return add_clutter(recipe, assets, rng, ids)


def add_clutter(recipe: Recipe, assets: Assets, rng: random.Random, ids: _Ids | None = None) -> Recipe:
    """Place `recipe.occluders` occluders (each hides one visible needed item, on its support) and
    `recipe.distractors` distractors on the staging surfaces. Deterministic in `rng`."""
    layout = recipe.layout
    base_items = [i for i in recipe.items if i.role not in (OCCLUDER, DISTRACTOR)]
    if ids is None:
        ids = _Ids([*(f.id for f in layout.fixtures), *(r for r, _ in layout.rooms), "robot", *(i.id for i in base_items)])
    by_id = {i.id: i for i in base_items}
    extra: list[ItemSpec] = []
    for target in recipe.occluder_candidates[: recipe.occluders]:
        cat = rng.choice(list(layout.occluders))
        obj = assets.object(cat)
        oid = ids.new(cat)
        name, rgba = ids.look(obj, rng)
        t = by_id[target]
        extra.append(ItemSpec(oid, cat, name, rgba, OCCLUDER, t.rel, t.parent, occludes=target))
    surfaces = [s for s in layout.staging if assets.object(layout.fixture(s).category).has(SURFACE)]
    for _ in range(recipe.distractors):
        cat = rng.choice(list(layout.distractors))
        obj = assets.object(cat)
        did = ids.new(cat)
        name, rgba = ids.look(obj, rng)
        extra.append(ItemSpec(did, cat, name, rgba, DISTRACTOR, ON, rng.choice(surfaces)))
    return replace(recipe, items=(*base_items, *extra))


def movable_fixtures(layout: Layout, assets: Assets) -> list[str]:
    """Fixtures the robot can move aside (bags, trays, lunch boxes): I5 blockers without clutter."""
    return [f.id for f in layout.fixtures if assets.object(f.category).has(MOVABLE) and (f.on or f.inside)]


def with_occluders(recipe: Recipe, n: int, assets: Assets, rng: random.Random) -> Recipe | None:
    """The same scene with `n` occluders (None when `n` is outside the layout range)."""
    lo, hi = recipe.layout.recipe["occluders"]
    if not lo <= n <= min(hi, len(recipe.occluder_candidates)):
        return None
    dis = recipe.distractors
    if n + dis == 0 and not movable_fixtures(recipe.layout, assets):
        dis = 1
    return add_clutter(replace(recipe, occluders=n, distractors=dis), assets, rng)
