"""The shared object appearance generator (robograph_backends.appearance): category shapes inside
the collision extents, labels with the product's name, deterministic. No simulator."""

from __future__ import annotations

import numpy as np
import pytest

from robograph.graph import GRABBABLE, MOVABLE, Node
from robograph_backends.appearance import (
    FACE_FRONT,
    FACE_UP,
    PLATE,
    AppearanceError,
    describe,
    family_of,
    label_image,
    rotation,
)
from robograph_backends.mujoco_kitchen.catalog import appearance, load_catalog


def _catalog_objects() -> list[tuple[str, str, tuple[float, float, float], tuple[float, ...]]]:
    """(category, collision shape, half extents, rgba) of every catalog object, shaped as the
    MuJoCo layout shapes them (a cylinder's radius from its smaller footprint side)."""
    out = []
    for cat, entry in sorted(load_catalog().items()):
        if entry.get("kind") != "object":
            continue
        sx, sy, sz = (float(v) for v in entry["size"])
        shape = str(entry.get("geometry", "box"))
        if shape == "cylinder":
            half = (min(sx, sy) / 2, min(sx, sy) / 2, sz / 2)
        elif shape == "sphere":
            r = min(sx, sy, sz) / 2
            half = (r, r, r)
        else:
            half = (sx / 2, sy / 2, sz / 2)
        out.append((cat, "box" if shape == "capsule" else shape, half, tuple(entry["rgba"])))
    return out


OBJECTS = _catalog_objects()


def test_the_catalog_has_objects_to_dress():
    assert len(OBJECTS) > 100


@pytest.mark.parametrize(("category", "shape", "half", "rgba"), OBJECTS, ids=[o[0] for o in OBJECTS])
def test_every_catalog_object_stays_inside_its_collision_extents(category, shape, half, rgba):
    vis = describe(category, category.replace("_", " "), shape, half, rgba)
    assert vis.parts
    lo, hi = vis.bounds()
    tol = 2 * PLATE + 1e-9  # a label plate may sit on the face it is printed on
    assert np.all(lo >= -np.asarray(half) - tol) and np.all(hi <= np.asarray(half) + tol), (lo, hi, half)
    for p in vis.parts:
        assert p.shape in ("box", "cylinder", "sphere", "capsule")
        assert min(p.half) > 0.0
        assert np.linalg.norm(p.quat) == pytest.approx(1.0)
        assert all(0.0 <= c <= 1.0 for c in p.rgba)
    names = [p.name for p in vis.parts]
    assert len(set(names)) == len(names)
    if vis.label is not None:
        assert vis.label.part in names and vis.label.text == category.replace("_", " ")


def test_a_bottle_has_a_narrow_neck_and_a_cap_and_a_jar_a_lid_as_wide_as_itself():
    bottle = describe("salad_dressing", "salad dressing", "cylinder", (0.03, 0.03, 0.1), (0.9, 0.85, 0.6, 1.0))
    parts = {p.name: p for p in bottle.parts}
    assert bottle.family == "bottle" and {"body", "neck", "cap"} <= set(parts)
    assert parts["neck"].half[0] < 0.5 * parts["body"].half[0]
    assert parts["cap"].pos[2] > parts["neck"].pos[2] > parts["body"].pos[2]
    jar = describe("jam_jar", "strawberry jam", "cylinder", (0.035, 0.035, 0.05), (0.6, 0.05, 0.2, 1.0))
    parts = {p.name: p for p in jar.parts}
    assert jar.family == "jar" and parts["lid"].half[0] >= parts["body"].half[0]
    # the two products no longer look alike: different families, part sets and labels
    assert {p.name for p in bottle.parts} != {p.name for p in jar.parts}
    assert not np.array_equal(bottle.label.image, jar.label.image)


def test_labels_face_the_robot_or_the_sky():
    front = describe("cereal_box", "corn flakes", "box", (0.035, 0.095, 0.14), (0.95, 0.75, 0.2, 1.0))
    plate = next(p for p in front.parts if p.label)
    r = rotation(plate.quat)
    assert plate.quat == FACE_FRONT
    np.testing.assert_allclose(r[:, 2], (-1.0, 0.0, 0.0), atol=1e-12)  # printed face toward -x (the robot)
    np.testing.assert_allclose(r[:, 1], (0.0, 0.0, 1.0), atol=1e-12)  # text upright
    assert plate.pos[0] < -0.035 + 1e-9
    flat = describe("notebook", "notebook", "box", (0.075, 0.105, 0.006), (0.3, 0.3, 0.35, 1.0))
    plate = next(p for p in flat.parts if p.label)
    assert plate.quat == FACE_UP
    np.testing.assert_allclose(rotation(plate.quat)[:, 2], (0.0, 0.0, 1.0), atol=1e-12)


def test_the_label_is_deterministic_and_shows_the_name():
    a = label_image("strawberry jam", 1.5, (0.6, 0.05, 0.2, 1.0))
    b = label_image("strawberry jam", 1.5, (0.6, 0.05, 0.2, 1.0))
    c = label_image("honey", 1.5, (0.6, 0.05, 0.2, 1.0))
    assert a.dtype == np.uint8 and a.ndim == 3 and a.shape[2] == 3 and a.shape[1] == 128
    assert a.shape[0] == round(128 / 1.5)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    band = a[a.shape[0] // 4: 3 * a.shape[0] // 4]
    dark = (band.max(axis=2) < 80).mean()
    assert 0.02 < dark < 0.6  # letters drawn, not a blank band
    # the stripes carry the product's colour
    np.testing.assert_array_equal(a[0, 0], (153, 13, 51))
    a.flags.writeable = True
    a[:] = 0  # a caller's copy: the cached picture is untouched
    assert np.array_equal(label_image("strawberry jam", 1.5, (0.6, 0.05, 0.2, 1.0)), b)


def test_the_family_table_is_read_only():
    from robograph_backends.appearance import FAMILIES

    with pytest.raises(TypeError):
        FAMILIES["ketchup"] = "jar"  # type: ignore[index]


def test_unknown_categories_fall_back_on_words_then_on_the_collision_shape():
    assert family_of("olive_oil_bottle", "cylinder") == "bottle"
    assert family_of("gizmo", "sphere") == "round"
    gizmo = describe("gizmo", "gizmo", "box", (0.04, 0.05, 0.06), (0.5, 0.5, 0.5, 1.0))
    assert gizmo.family == "generic" and gizmo.label is not None
    # proportions a family cannot draw (a "bottle" flatter than it is wide) give the generic shape
    squat = describe("ketchup", "ketchup", "cylinder", (0.05, 0.05, 0.02), (0.8, 0.1, 0.1, 1.0))
    assert squat.family == "generic"


def test_a_vessel_only_gets_its_name_on_the_front_wall():
    vis = describe("lunch_box", "blue lunch box", "box", (0.11, 0.08, 0.04), (0.3, 0.65, 0.85, 1.0), hollow=True)
    assert vis.family == "vessel" and [p.name for p in vis.parts] == ["label"]
    assert vis.label is not None and vis.parts[0].pos[0] < -0.11


def test_unlabelled_families_have_no_label():
    apple = describe("apple", "apple", "sphere", (0.04, 0.04, 0.04), (0.8, 0.1, 0.1, 1.0))
    assert apple.family == "fruit" and apple.label is None and not any(p.label for p in apple.parts)
    assert {"body", "stem"} <= {p.name for p in apple.parts}


@pytest.mark.parametrize(("shape", "half"), [("cone", (0.1, 0.1, 0.1)), ("box", (0.1, 0.0, 0.1)),
                                             ("box", (0.1, float("nan"), 0.1))])
def test_bad_input_is_a_typed_error_naming_it(shape, half):
    with pytest.raises(AppearanceError, match="cone|positive"):
        describe("cup", "cup", shape, half, (1.0, 1.0, 1.0, 1.0))


def test_a_node_sized_in_its_props_is_built_that_size_and_a_bad_size_or_colour_is_named():
    """docs/benchmark.md: every node carries `props.size` for the scene builders; a hand-written
    instance may size one node unlike its category (the compiler copies the catalog's)."""
    grab = frozenset({GRABBABLE, MOVABLE})
    catalog = load_catalog()["primer_bottle"]["size"]
    assert appearance(Node("b", "bottle", "primer_bottle", affordances=grab)).size == tuple(catalog)
    big = Node("b", "bottle", "primer_bottle", affordances=grab, props={"size": [0.05, 0.05, 0.2]})
    assert appearance(big).size == (0.05, 0.05, 0.2)
    for key, bad in (("size", [0.05, 0.05]), ("size", [0.05, -0.05, 0.2]), ("size", "tall"),
                     ("rgba", [1.0, 0.0, 0.0]), ("rgba", [255, 0, 0, 255])):
        with pytest.raises(AppearanceError, match=f"node b: props {key}"):
            appearance(Node("b", "bottle", "primer_bottle", affordances=grab, props={key: bad}))
