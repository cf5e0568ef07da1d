"""Hand-made indoor instances (one per indoor family of the paper) with their oracle plans in
`metadata.oracle_plan`. They exercise the kitchen builder until the compiler's benchmark exists,
and serve the tests and `scripts/bench_mujoco.py`. Built through `TaskInstance.from_json`, so they
pass the same validator as instance files.
"""

from __future__ import annotations

from typing import Any

from robograph.instance import TaskInstance

_AFF = {
    "item": ["GRABBABLE", "MOVABLE"],
    "surface": ["SURFACE"],
    "box": ["CONTAINER", "OPENABLE"],
    "bin": ["CONTAINER"],
}


class _G:
    def __init__(self) -> None:
        self.nodes: list[dict[str, Any]] = [{"id": "robot", "name": "robot", "category": "robot", "kind": "robot",
                                             "affordances": []}]
        self.edges: list[dict[str, Any]] = []

    def node(self, nid: str, category: str, kind: str, affordances: list[str], *, capacity: int | None = None,
             **attrs: Any) -> _G:
        rec: dict[str, Any] = {"id": nid, "name": nid.replace("_", " "), "category": category, "kind": kind,
                               "affordances": affordances}
        if capacity is not None:
            rec["capacity"] = capacity
        if attrs:
            rec["attrs"] = attrs
        self.nodes.append(rec)
        return self

    def edge(self, a: str, rel: str, b: str, **when: Any) -> _G:
        rec: dict[str, Any] = {"from": a, "relation": rel, "to": b}
        if when:
            rec["when"] = when
        self.edges.append(rec)
        return self

    def rooms(self, *rooms: str) -> _G:
        for r in rooms:
            self.node(r, r, "room", [])
        for a, b in zip(rooms, rooms[1:], strict=False):
            self.edge(a, "ADJACENT", b)
        return self

    def instance(self, iid: str, family: str, task: str, goal: list[str], plan: list[str], robot_room: str) -> TaskInstance:
        for n in self.nodes:
            if n["id"] == "robot":
                n["attrs"] = {"room": robot_room}
        data = {
            "id": iid,
            "task": task,
            "task_type": family,
            "settings": ["indoor"],
            "graph": {"nodes": self.nodes, "edges": self.edges},
            "goal": goal,
            "metadata": {"domain": "indoor", "family": family, "condition": "baseline", "seed": 0,
                         "scene_id": iid, "oracle_plan": plan},
        }
        return TaskInstance.from_json(data, source=iid)


def fridge_condiments() -> TaskInstance:
    g = _G().rooms("kitchen", "dining_room")
    g.node("fridge", "fridge", "furniture", _AFF["box"], open=False)
    g.node("fridge_shelf", "fridge_shelf", "furniture", ["SURFACE", "TRANSPARENT"], capacity=4)
    g.node("dining_table", "dining_table", "furniture", _AFF["surface"])
    g.node("ketchup", "ketchup", "object", _AFF["item"])
    g.node("mustard", "mustard", "object", _AFF["item"])
    g.node("cereal_box", "cereal_box", "object", _AFF["item"])
    g.node("jam_jar", "jam_jar", "object", _AFF["item"])
    g.edge("fridge", "IN_ROOM", "kitchen").edge("fridge_shelf", "INSIDE", "fridge")
    g.edge("dining_table", "IN_ROOM", "dining_room")
    for o in ("ketchup", "mustard", "cereal_box", "jam_jar"):
        g.edge(o, "ON", "dining_table")
    g.edge("cereal_box", "OCCLUDES", "jam_jar")
    plan = ["open fridge", "walk dining_room", "grab ketchup", "grab mustard", "walk kitchen",
            "puton ketchup fridge_shelf", "puton mustard fridge_shelf", "walk dining_room",
            "move_aside cereal_box", "grab jam_jar", "walk kitchen", "puton jam_jar fridge_shelf", "close fridge",
            "stop"]
    goal = ["ON(ketchup, fridge_shelf)", "ON(mustard, fridge_shelf)", "ON(jam_jar, fridge_shelf)",
            "CLOSED(fridge)"]
    return g.instance("mj-fridge-1", "fridge_condiment_loading", "Load the condiments into the fridge", goal, plan,
                      "kitchen")


def buffet_tray() -> TaskInstance:
    g = _G().rooms("dining_room", "kitchen")
    g.node("buffet_counter", "buffet_counter", "furniture", _AFF["surface"])
    g.node("serving_tray", "serving_tray", "object", ["SURFACE", "CARRIER", "GRABBABLE", "MOVABLE"], capacity=5)
    g.node("muffin", "muffin", "object", _AFF["item"])
    g.node("croissant", "croissant", "object", _AFF["item"])
    g.node("sideboard", "sideboard", "furniture", _AFF["surface"])
    g.node("sideboard_drawer", "sideboard_drawer", "furniture", _AFF["box"], capacity=8, open=False)
    g.node("sauce_cup", "sauce_cup", "object", _AFF["item"])
    g.node("kitchen_counter", "kitchen_counter", "furniture", _AFF["surface"])
    g.node("bread_roll", "bread_roll", "object", _AFF["item"])
    g.edge("buffet_counter", "IN_ROOM", "dining_room").edge("sideboard", "IN_ROOM", "dining_room")
    g.edge("sideboard_drawer", "INSIDE", "sideboard").edge("sauce_cup", "INSIDE", "sideboard_drawer")
    g.edge("serving_tray", "ON", "buffet_counter").edge("muffin", "ON", "buffet_counter")
    g.edge("croissant", "ON", "buffet_counter")
    g.edge("kitchen_counter", "IN_ROOM", "kitchen").edge("bread_roll", "ON", "kitchen_counter")
    plan = ["grab muffin", "puton muffin serving_tray", "grab croissant", "puton croissant serving_tray",
            "open sideboard_drawer", "grab sauce_cup", "puton sauce_cup serving_tray", "close sideboard_drawer",
            "walk kitchen", "grab bread_roll", "walk dining_room", "puton bread_roll serving_tray", "stop"]
    goal = ["ON(muffin, serving_tray)", "ON(croissant, serving_tray)", "ON(sauce_cup, serving_tray)",
            "ON(bread_roll, serving_tray)", "CLOSED(sideboard_drawer)"]
    return g.instance("mj-buffet-1", "buffet_tray_sorting", "Sort the buffet food onto the tray", goal, plan,
                      "dining_room")


def food_packing() -> TaskInstance:
    g = _G().rooms("kitchen", "pantry")
    g.node("kitchen_counter", "kitchen_counter", "furniture", _AFF["surface"])
    g.node("lunch_box", "lunch_box", "object", ["CONTAINER", "GRABBABLE", "MOVABLE", "OPENABLE"], capacity=3,
           open=False)
    g.node("sandwich", "sandwich", "object", _AFF["item"])
    g.node("apple", "apple", "object", _AFF["item"])
    g.node("pantry_cabinet", "pantry_cabinet", "furniture", _AFF["box"], capacity=8, open=False)
    g.node("granola_bar", "granola_bar", "object", _AFF["item"])
    g.edge("kitchen_counter", "IN_ROOM", "kitchen").edge("lunch_box", "ON", "kitchen_counter")
    g.edge("sandwich", "ON", "kitchen_counter").edge("apple", "ON", "kitchen_counter")
    g.edge("pantry_cabinet", "IN_ROOM", "pantry").edge("granola_bar", "INSIDE", "pantry_cabinet")
    plan = ["open lunch_box", "walk pantry", "open pantry_cabinet", "grab granola_bar", "walk kitchen",
            "putin granola_bar lunch_box", "grab sandwich", "putin sandwich lunch_box",
            "grab apple", "putin apple lunch_box", "close lunch_box", "stop"]
    goal = ["INSIDE(sandwich, lunch_box)", "INSIDE(apple, lunch_box)", "INSIDE(granola_bar, lunch_box)",
            "CLOSED(lunch_box)"]
    return g.instance("mj-food-1", "food_packing", "Pack the lunch box", goal, plan, "kitchen")


def indoor_samples() -> list[TaskInstance]:
    return [fridge_condiments(), buffet_tray(), food_packing()]


def skills_playground() -> TaskInstance:
    """A small two-room kitchen with one setup per skill: a drawer, a hinged-door cabinet, a lidded
    box, a lamp to press, a two-part toy to attach, an occluded jar and plain items to carry."""
    g = _G().rooms("kitchen", "dining_room")
    g.node("kitchen_counter", "kitchen_counter", "furniture", _AFF["surface"])
    g.node("cup", "cup", "object", _AFF["item"])
    g.node("lunch_box", "lunch_box", "object", ["CONTAINER", "GRABBABLE", "MOVABLE", "OPENABLE"], capacity=3,
           open=False)
    g.node("table_lamp", "table_lamp", "object", ["PRESSABLE"], pressed=False)
    g.node("rocket_nose", "rocket_nose", "object", ["GRABBABLE", "MOVABLE", "PART"])
    g.node("rocket_base", "rocket_base", "object", ["GRABBABLE", "MOVABLE", "PART"])
    g.node("toy_rocket", "toy_rocket", "object", ["ASSEMBLY", "GRABBABLE", "MOVABLE"], assembled=False)
    g.node("sideboard", "sideboard", "furniture", _AFF["surface"])
    g.node("sideboard_drawer", "sideboard_drawer", "furniture", _AFF["box"], capacity=8, open=False)
    g.node("spoon", "salt_shaker", "object", _AFF["item"])
    g.node("pantry_cabinet", "pantry_cabinet", "furniture", _AFF["box"], capacity=8, open=False)
    g.node("dining_table", "dining_table", "furniture", _AFF["surface"])
    g.node("cereal_box", "cereal_box", "object", _AFF["item"])
    g.node("jam_jar", "jam_jar", "object", _AFF["item"])
    g.edge("kitchen_counter", "IN_ROOM", "kitchen").edge("sideboard", "IN_ROOM", "kitchen")
    g.edge("pantry_cabinet", "IN_ROOM", "kitchen").edge("dining_table", "IN_ROOM", "dining_room")
    for o in ("cup", "lunch_box", "rocket_nose", "rocket_base"):
        g.edge(o, "ON", "kitchen_counter")
    g.edge("table_lamp", "ON", "sideboard")
    g.edge("rocket_nose", "PART_OF", "toy_rocket").edge("rocket_base", "PART_OF", "toy_rocket")
    g.edge("sideboard_drawer", "INSIDE", "sideboard").edge("spoon", "INSIDE", "sideboard_drawer")
    g.edge("cereal_box", "ON", "dining_table").edge("jam_jar", "ON", "dining_table")
    g.edge("cereal_box", "OCCLUDES", "jam_jar")
    plan = ["grab cup", "puton cup kitchen_counter", "stop"]
    return g.instance("mj-skills-1", "skills", "Exercise every skill", ["ASSEMBLED(toy_rocket)"], plan, "kitchen")
