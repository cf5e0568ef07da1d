"""The executable scene graph: the canonical task state G_t = (V_t, E_t, X_t).

A `SceneGraph` is immutable. Every change goes through a `Rewrite` (see `rewrite.py`), which
returns a new graph that shares the unchanged parts with the old one, so states are cheap to
copy and safe to hash (the exact oracle expands many of them).

Location model: every located node has exactly one *location edge* (IN_ROOM, ON or INSIDE) or is
held in one of the robot's two hands (recorded in the robot node's `left`/`right` attributes).
All other relations (OCCLUDES, ADJACENT, PART_OF) are free-standing edges.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from robograph.errors import UnknownNodeError

# Relations --------------------------------------------------------------------------------------
INSIDE = "INSIDE"
ON = "ON"
IN_ROOM = "IN_ROOM"
OCCLUDES = "OCCLUDES"
ADJACENT = "ADJACENT"
PART_OF = "PART_OF"

LOCATION_RELATIONS = frozenset({INSIDE, ON, IN_ROOM})
RELATIONS = frozenset({INSIDE, ON, IN_ROOM, OCCLUDES, ADJACENT, PART_OF})

# Node kinds -------------------------------------------------------------------------------------
ROBOT = "robot"
ROOM = "room"
FURNITURE = "furniture"
OBJECT = "object"
NODE_KINDS = frozenset({ROBOT, ROOM, FURNITURE, OBJECT})

ROBOT_ID = "robot"
HANDS = ("left", "right")

# Affordances ------------------------------------------------------------------------------------
GRABBABLE = "GRABBABLE"
MOVABLE = "MOVABLE"
OPENABLE = "OPENABLE"
PRESSABLE = "PRESSABLE"
CONTAINER = "CONTAINER"
SURFACE = "SURFACE"
PART = "PART"
ASSEMBLY = "ASSEMBLY"
TRANSPARENT = "TRANSPARENT"
CARRIER = "CARRIER"
AFFORDANCES = frozenset(
    {GRABBABLE, MOVABLE, OPENABLE, PRESSABLE, CONTAINER, SURFACE, PART, ASSEMBLY, TRANSPARENT, CARRIER}
)

# Mutable attributes that the agent may observe (rho in Eq. 9), besides derived `is_full`.
OBSERVABLE_ATTRIBUTES = ("open", "assembled", "pressed")
# Attributes whose achieved value an I2 state regression may reset.
REVERSIBLE_ATTRIBUTES = ("open", "moved_aside", "pressed")


class Edge(NamedTuple):
    """A directed typed relation. `when` conditions an OCCLUDES edge on the source's attributes
    (Figure 3: an *open* drawer hides the drawer below it), as ((attr, value), ...)."""

    src: str
    rel: str
    dst: str
    when: tuple[tuple[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"from": self.src, "relation": self.rel, "to": self.dst}
        if self.when:
            data["when"] = dict(self.when)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Edge:
        when = tuple(sorted((str(k), v) for k, v in dict(data.get("when") or {}).items()))
        return cls(str(data["from"]), str(data["relation"]), str(data["to"]), when)


@dataclass(frozen=True, slots=True)
class Node:
    """Static part of a node: what it is and what it affords. Mutable state lives in attrs."""

    id: str
    name: str
    category: str
    kind: str = OBJECT
    affordances: frozenset[str] = frozenset()
    capacity: int | None = None
    props: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def has(self, affordance: str) -> bool:
        return affordance in self.affordances

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "category": self.category,
            "kind": self.kind,
            "affordances": sorted(self.affordances),
        }
        if self.capacity is not None:
            data["capacity"] = self.capacity
        if self.props:
            data["props"] = dict(self.props)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Node:
        cap = data.get("capacity")
        return cls(
            id=str(data["id"]),
            name=str(data.get("name", data["id"])),
            category=str(data.get("category", data.get("kind", OBJECT))),
            kind=str(data.get("kind", OBJECT)),
            affordances=frozenset(str(a) for a in data.get("affordances", ())),
            capacity=None if cap is None else int(cap),
            props=dict(data.get("props") or {}),
        )


Attrs = Mapping[str, Any]
_EMPTY: dict[str, Any] = {}


class SceneGraph:
    """Immutable scene graph. Construct with `SceneGraph.build`, change with `rewrite.apply`.

    `nodes` maps id -> Node (static); `attrs` maps id -> attribute dict (never mutated in place);
    `edges` is a frozenset of Edge; `location` indexes each node's single location edge.
    """

    __slots__ = ("nodes", "attrs", "edges", "location", "_hash", "_children", "_by_rel", "_roots", "_occluded",
                 "_derived")

    nodes: Mapping[str, Node]
    attrs: Mapping[str, Attrs]
    edges: frozenset[Edge]
    location: Mapping[str, Edge]

    def __init__(
        self,
        nodes: Mapping[str, Node],
        attrs: Mapping[str, Attrs],
        edges: frozenset[Edge],
        location: Mapping[str, Edge] | None = None,
    ) -> None:
        self.nodes = nodes
        self.attrs = attrs
        self.edges = edges
        if location is None:
            location = {e.src: e for e in edges if e.rel in LOCATION_RELATIONS}
        self.location = location
        self._hash: int | None = None
        # lazily built indexes; `derive` hands them on to a successor whose inputs are unchanged
        self._children: dict[str, list[str]] | None = None
        self._by_rel: dict[str, tuple[Edge, ...]] | None = None
        self._roots: tuple[str, ...] | None = None
        self._occluded: frozenset[str] | None = None
        self._derived: dict[str, Any] | None = None  # see `derived`; never handed to a successor

    def derive(
        self,
        *,
        nodes: Mapping[str, Node] | None = None,
        attrs: Mapping[str, Attrs] | None = None,
        free_edges: frozenset[Edge] | None = None,
    ) -> SceneGraph:
        """A successor graph with nodes, attributes or non-location edges replaced (what most
        rewrites return; location changes go through `relocate`). Indexes over the parts it
        keeps are shared, so a step that only flips an attribute rebuilds none of them."""
        new = SceneGraph(
            self.nodes if nodes is None else nodes,
            self.attrs if attrs is None else attrs,
            self.edges if free_edges is None else free_edges,
            self.location,
        )
        new._children = self._children
        if free_edges is None:
            new._by_rel = self._by_rel
            if nodes is None:
                new._roots = self._roots
        return new

    def relocate(self, node_id: str, edge: Edge | None, attrs: Mapping[str, Attrs] | None = None) -> SceneGraph:
        """A successor graph where `node_id`'s location edge is `edge` (None: no location), with
        optional new attributes (hands). The children and root indexes are updated in place of
        a rebuild; the relation index is shared (only location edges change)."""
        old = self.location.get(node_id)
        edges = self.edges
        location = dict(self.location)
        if old is not None:
            edges = edges - {old}
            del location[node_id]
        if edge is not None:
            edges = edges | {edge}
            location[node_id] = edge
        new = SceneGraph(self.nodes, self.attrs if attrs is None else attrs, edges, location)
        new._by_rel = self._by_rel
        if self._children is not None:
            index = dict(self._children)
            if old is not None:
                kids = [k for k in index[old.dst] if k != node_id]
                if kids:
                    index[old.dst] = kids
                else:
                    del index[old.dst]
            if edge is not None:
                index[edge.dst] = sorted([*index.get(edge.dst, ()), node_id])
            new._children = index
        if self._roots is None or (old is None) == (edge is None):
            new._roots = self._roots  # still located (or still not): the same roots
        else:
            roots = set(self._roots)
            if edge is not None:
                roots.discard(node_id)
            elif self.nodes[node_id].kind not in (ROBOT, ROOM) and not any(
                node_id in (e.src, e.dst) for e in self.edges_of(PART_OF)
            ):
                roots.add(node_id)
            new._roots = tuple(sorted(roots))
        return new

    # construction -------------------------------------------------------------------------------
    @classmethod
    def build(
        cls,
        nodes: Iterable[Node],
        edges: Iterable[Edge] = (),
        attrs: Mapping[str, Attrs] | None = None,
    ) -> SceneGraph:
        node_map = {n.id: n for n in nodes}
        attr_map: dict[str, Attrs] = {nid: dict((attrs or {}).get(nid, {})) for nid in node_map}
        if ROBOT_ID in node_map:
            robot = dict(attr_map[ROBOT_ID])
            for hand in HANDS:
                robot.setdefault(hand, None)
            attr_map[ROBOT_ID] = robot
        return cls(node_map, attr_map, frozenset(edges))

    # queries -------------------------------------------------------------------------------------
    def node(self, node_id: str) -> Node:
        try:
            return self.nodes[node_id]
        except KeyError:
            raise UnknownNodeError(node_id, sorted(self.nodes)) from None

    def attr(self, node_id: str, key: str, default: Any = None) -> Any:
        return self.attrs.get(node_id, _EMPTY).get(key, default)

    def is_open(self, node_id: str) -> bool:
        return bool(self.attrs.get(node_id, _EMPTY).get("open", False))

    @property
    def has_robot(self) -> bool:
        return ROBOT_ID in self.nodes

    def held(self) -> tuple[str, ...]:
        """Ids held by the robot, left hand first."""
        robot = self.attrs.get(ROBOT_ID, _EMPTY)
        return tuple(h for h in (robot.get("left"), robot.get("right")) if h)

    def hand_of(self, node_id: str) -> str | None:
        robot = self.attrs.get(ROBOT_ID, _EMPTY)
        for hand in HANDS:
            if robot.get(hand) == node_id:
                return hand
        return None

    def free_hands(self) -> int:
        robot = self.attrs.get(ROBOT_ID, _EMPTY)
        return sum(1 for hand in HANDS if not robot.get(hand))

    def robot_room(self) -> str | None:
        return self.attrs.get(ROBOT_ID, _EMPTY).get("room")

    def rooms(self) -> list[str]:
        return [nid for nid, n in self.nodes.items() if n.kind == ROOM]

    def parent(self, node_id: str) -> str | None:
        edge = self.location.get(node_id)
        return edge.dst if edge is not None else None

    def children(self, node_id: str) -> list[str]:
        """Nodes whose location edge points at `node_id` (direct contents or supported items)."""
        return self.children_index().get(node_id, [])

    def children_index(self) -> Mapping[str, list[str]]:
        """node id -> sorted ids located on/in it; built once per location map (treat read-only)."""
        if self._children is None:
            index: dict[str, list[str]] = {}
            for edge in self.location.values():
                index.setdefault(edge.dst, []).append(edge.src)
            for kids in index.values():
                kids.sort()
            self._children = index
        return self._children

    def ancestors(self, node_id: str) -> Iterator[str]:
        """Location chain upwards, nearest first. Stops on a cycle instead of looping."""
        seen = {node_id}
        edge = self.location.get(node_id)
        while edge is not None and edge.dst not in seen:
            seen.add(edge.dst)
            yield edge.dst
            edge = self.location.get(edge.dst)

    def room_of(self, node_id: str) -> str | None:
        """The room that (transitively) holds a node; held objects are in the robot's room."""
        if node_id in self.nodes and self.nodes[node_id].kind == ROOM:
            return node_id
        if self.hand_of(node_id):
            return self.robot_room()
        for anc in self.ancestors(node_id):
            if self.nodes[anc].kind == ROOM:
                return anc
            if self.hand_of(anc):
                return self.robot_room()
        return None

    def edges_of(self, rel: str) -> tuple[Edge, ...]:
        """All edges of one relation, sorted. Non-location relations are indexed once per edge
        set (and the index survives moves); location relations are read off `location`."""
        if rel in LOCATION_RELATIONS:
            return tuple(sorted(e for e in self.location.values() if e.rel == rel))
        if self._by_rel is None:
            index: dict[str, list[Edge]] = {}
            for edge in self.edges:
                if edge.rel not in LOCATION_RELATIONS:
                    index.setdefault(edge.rel, []).append(edge)
            self._by_rel = {r: tuple(sorted(es)) for r, es in index.items()}
        return self._by_rel.get(rel, ())

    def edges_from(self, node_id: str, rel: str) -> list[Edge]:
        return [e for e in self.edges_of(rel) if e.src == node_id]

    def edges_to(self, node_id: str, rel: str) -> list[Edge]:
        return [e for e in self.edges_of(rel) if e.dst == node_id]

    def contents(self, container_id: str) -> list[str]:
        return [c for c in self.children(container_id) if self.location[c].rel == INSIDE]

    def load(self, node_id: str) -> int:
        """Items placed in or on a node (what its capacity limits)."""
        return sum(1 for c in self.children(node_id) if self.location[c].rel in (INSIDE, ON))

    def is_full(self, node_id: str) -> bool | None:
        cap = self.nodes[node_id].capacity
        if cap is None:
            return None
        return self.load(node_id) >= cap

    def adjacent_rooms(self, room_id: str | None) -> list[str]:
        if room_id is None:
            return []
        adjacent = self.edges_of(ADJACENT)
        out = {e.dst for e in adjacent if e.src == room_id}
        out |= {e.src for e in adjacent if e.dst == room_id}
        return sorted(out)

    def derived(self, key: str, compute: Callable[[SceneGraph], Any]) -> Any:
        """`compute(self)`, evaluated once per graph object and kept with it. For pure functions
        of the whole graph (the view): the graph is immutable, and a failed action leaves the
        episode on the same object, so the next question about it is answered from the cache."""
        if self._derived is None:
            self._derived = {}
        try:
            return self._derived[key]
        except KeyError:
            value = self._derived[key] = compute(self)
            return value

    def occluded(self) -> frozenset[str]:
        """Targets of the currently active OCCLUDES edges (cached: the graph is immutable)."""
        if self._occluded is None:
            self._occluded = frozenset(e.dst for e in self.edges_of(OCCLUDES) if self.occlusion_active(e))
        return self._occluded

    def unlocated_roots(self) -> tuple[str, ...]:
        """Unlocated furniture and objects that are not assembly parts or wholes, sorted: the roots
        of a tabletop scene (held objects among them are the caller's to drop)."""
        if self._roots is None:
            part_ends: set[str] = set()
            for e in self.edges_of(PART_OF):
                part_ends.update((e.src, e.dst))
            location = self.location
            self._roots = tuple(sorted(
                nid for nid, node in self.nodes.items()
                if nid not in location and node.kind not in (ROBOT, ROOM) and nid not in part_ends
            ))
        return self._roots

    def occlusion_active(self, edge: Edge) -> bool:
        """An OCCLUDES edge blocks while its blocker is in place (not moved aside, not held) and
        its attribute condition holds."""
        src_attrs = self.attrs.get(edge.src, _EMPTY)
        if src_attrs.get("moved_aside"):
            return False
        if self.hand_of(edge.src):
            return False
        return all(src_attrs.get(k, False) == v for k, v in edge.when)

    # identity ------------------------------------------------------------------------------------
    def state_key(self) -> tuple[frozenset[Edge], frozenset[tuple[str, str, Any]]]:
        items = frozenset(
            (nid, k, v) for nid, a in self.attrs.items() for k, v in a.items() if v is not None
        )
        return (self.edges, items | frozenset(("$node", nid, None) for nid in self.nodes))

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self.state_key())
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SceneGraph):
            return NotImplemented
        if self is other:
            return True
        return (
            self.edges == other.edges
            and self.nodes.keys() == other.nodes.keys()
            and self.state_key() == other.state_key()
        )

    def __repr__(self) -> str:
        return f"SceneGraph({len(self.nodes)} nodes, {len(self.edges)} edges)"

    # serialization -------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        nodes = []
        for nid in sorted(self.nodes):
            data = self.nodes[nid].to_json()
            attrs = {k: v for k, v in sorted(self.attrs.get(nid, _EMPTY).items()) if v is not None}
            if attrs:
                data["attrs"] = attrs
            nodes.append(data)
        edges = [e.to_json() for e in sorted(self.edges)]
        return {"nodes": nodes, "edges": edges}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SceneGraph:
        nodes = [Node.from_json(n) for n in data.get("nodes", ())]
        attrs = {str(n["id"]): dict(n.get("attrs") or {}) for n in data.get("nodes", ())}
        edges = [Edge.from_json(e) for e in data.get("edges", ())]
        return cls.build(nodes, edges, attrs)
