"""Hand-made oracle instances (built with tests/builders.Scene) with their known optimal lengths.

Each case is small enough that exhaustive search without pruning also finishes, so the tests can
compare pruned and unpruned optima, replay plans in the runtime and cross-check Fast Downward."""

from __future__ import annotations

from builders import Scene, desk_scene, figure3_scene, house_scene

from robograph.gym_env import demo_instance_path
from robograph.instance import TaskInstance, load_instance


def pencil_case(*, case_open: bool = True, other_room: bool = False) -> TaskInstance:
    """Appendix A's example: the red pen hides behind a book; goal pen in case and case closed."""
    s = Scene()
    if other_room:
        s.room("office").room("hall").adjacent("office", "hall").robot_in("hall")
    s.surface("desk")
    if other_room:
        s.in_room("desk", "office")
    s.box("pencil_case", grabbable=True, is_open=case_open).on("pencil_case", "desk")
    s.item("book").on("book", "desk")
    s.item("red_pen").on("red_pen", "desk").occludes("book", "red_pen")
    return s.instance(["INSIDE(red_pen, pencil_case)", "CLOSED(pencil_case)"])


def desk_tidy() -> TaskInstance:
    """desk_scene: pen from the drawer into the case, cup (behind the book) onto the desk's case,
    marker assembled, lamp pressed, drawer closed."""
    return desk_scene().instance([
        "INSIDE(pen, case)", "ASSEMBLED(marker)", "PRESSED(lamp)", "CLOSED(drawer)",
        "INSIDE(coin, case)",
    ])


def figure3() -> TaskInstance:
    """Figure 3: both drawers hold an item; the open first drawer hides the second."""
    return figure3_scene().surface("tray").instance([
        "ON(concealer, tray)", "ON(lipstick, tray)", "CLOSED(drawer_1)", "CLOSED(drawer_2)",
    ])


def house_move() -> TaskInstance:
    """Indoor: mug and milk to the bed, pillow to the counter; the fridge ends closed."""
    return house_scene().instance([
        "ON(mug, bed)", "ON(milk, bed)", "ON(pillow, counter)", "CLOSED(fridge)",
    ])


def house_many() -> TaskInstance:
    """Indoor with three items to carry two rooms away (two trips with two hands)."""
    s = house_scene().item("plate").on("plate", "counter").item("spoon").on("spoon", "counter")
    return s.instance(["ON(mug, bed)", "ON(plate, bed)", "ON(spoon, bed)"])


def hands_juggle() -> TaskInstance:
    """The robot starts holding two things and must open a box: it has to put something down."""
    s = (Scene().surface("table").box("box").on("box", "table").item("key").inside("key", "box")
         .item("apple").item("pear").hold("apple", "left").hold("pear", "right"))
    return s.instance(["ON(key, table)", "ON(apple, table)"])


def nested() -> TaskInstance:
    """A key in a closed box inside a closed cabinet; a transparent jar shows a coin it hides."""
    s = (Scene().surface("table").box("cabinet").on("cabinet", "table")
         .box("box", grabbable=True).inside("box", "cabinet").item("key").inside("key", "box")
         .glass_box("jar").on("jar", "table").item("coin").inside("coin", "jar")
         .item("junk").on("junk", "table").item("junk2").on("junk2", "table"))
    return s.instance(["ON(key, table)", "ON(coin, table)", "CLOSED(cabinet)"])


def nested_carriers() -> TaskInstance:
    """A key in a closed box inside a basket inside a crate, all three movable: every chain to the
    key crosses two or three movable receivers (the PDDL export's focus token travels)."""
    s = (Scene().surface("table").box("crate", grabbable=True, is_open=True).on("crate", "table")
         .box("basket", grabbable=True, is_open=True).inside("basket", "crate")
         .box("box", grabbable=True).inside("box", "basket").item("key").inside("key", "box")
         .item("cup").on("cup", "table"))
    return s.instance(["ON(key, table)", "CLOSED(box)"])


def capacity_full() -> TaskInstance:
    """The target tray is full of unrelated items: one must be taken off first."""
    s = (Scene().surface("table").surface("tray", capacity=2).on("tray", "table")
         .item("a").on("a", "tray").item("b").on("b", "tray").item("gem").on("gem", "table"))
    return s.instance(["ON(gem, tray)"])


def drawer_swap() -> TaskInstance:
    """Figure 3 with a transfer: the lipstick in the second drawer goes into the first, whose
    opening hides the second, so it has to be set down once on the way (two grabs, two puts)."""
    return figure3_scene().instance([
        "INSIDE(lipstick, drawer_1)", "CLOSED(drawer_1)", "CLOSED(drawer_2)",
    ])


def drawer_misplaced() -> TaskInstance:
    """Figure 3 after an I4 relocation: the concealer lies in the first drawer but belongs in the
    second, which the first hides while open: taken out, set down, the drawer closed, then moved."""
    return figure3_scene().instance(["INSIDE(concealer, drawer_2)", "CLOSED(drawer_1)"])


def box_reopen(*, closed_goal: bool = True) -> TaskInstance:
    """After an I5 occlusion: a bag now hides the pen, and the open box the pen belongs in hides
    the bag: the box is closed, the bag moved aside, the box reopened (and closed again)."""
    s = (Scene().surface("table").box("box", is_open=True).on("box", "table")
         .item("bag").on("bag", "table").occludes("box", "bag", open=True)
         .item("pen").on("pen", "table").occludes("bag", "pen"))
    return s.instance(["INSIDE(pen, box)", *(["CLOSED(box)"] if closed_goal else [])])


def held_into_closed() -> TaskInstance:
    """The robot holds the pen that belongs in a closed box: open needs both hands free, so the
    pen is set down first and grabbed again."""
    s = Scene().surface("table").box("box").on("box", "table").item("pen").hold("pen")
    return s.instance(["INSIDE(pen, box)"])


def basket_run() -> TaskInstance:
    """Indoor: three items in the bedroom go into a basket in the kitchen that already holds the
    bread it should hold; carrying the basket means emptying it first, shuttling means walks."""
    s = (house_scene().box("basket", grabbable=True, is_open=True).on("basket", "counter")
         .item("bread").inside("bread", "basket")
         .item("sock").on("sock", "bed").item("book").on("book", "bed"))
    return s.instance(["INSIDE(bread, basket)", "INSIDE(pillow, basket)", "INSIDE(sock, basket)",
                       "INSIDE(book, basket)"])


def demo() -> TaskInstance:
    return load_instance(demo_instance_path())


# name -> (factory, optimal plan length L_o, stop excluded)
CASES = {
    "pencil_case": (pencil_case, 4),
    "pencil_case_room": (lambda: pencil_case(other_room=True), 5),
    "pencil_case_closed": (lambda: pencil_case(case_open=False), 5),
    "desk_tidy": (desk_tidy, None),
    "figure3": (figure3, None),
    "house_move": (house_move, None),
    "house_many": (house_many, None),
    "hands_juggle": (hands_juggle, None),
    "nested": (nested, None),
    "nested_carriers": (nested_carriers, 4),
    "capacity_full": (capacity_full, 3),
    "drawer_swap": (drawer_swap, None),
    "drawer_misplaced": (drawer_misplaced, 7),
    "box_reopen": (box_reopen, 6),
    "held_into_closed": (held_into_closed, 4),
    "box_reopen_open_end": (lambda: box_reopen(closed_goal=False), 5),
    "basket_run": (basket_run, None),
    "demo": (demo, 18),
}
