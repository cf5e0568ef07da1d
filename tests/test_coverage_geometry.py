"""The occlusion geometry both physical backends share (robograph_backends.coverage) and the
tabletop's blocker sizing on it (sapien_tabletop.hiding): pure numpy, no simulator."""

from __future__ import annotations

import numpy as np

from robograph_backends.coverage import (
    Primitives,
    coverage,
    cylinder_distances,
    slab_distances,
    surface,
    units,
)
from robograph_backends.sapien_tabletop.cameras import head_viewpoint
from robograph_backends.sapien_tabletop.hiding import (
    GRASP_WIDTH,
    GROW_COVER,
    box_coverage,
    grown_box,
    raised_lid,
)

CAM = np.zeros(3)


def _box(c, h) -> Primitives:
    return Primitives.of([(np.asarray(c, float), np.eye(3), np.asarray(h, float))], [])


def test_ray_distances_to_a_box_and_a_cylinder_are_the_analytic_ones():
    rays = units(np.array([[1.0, 0.0, 0.0], [1.0, 0.05, 0.0], [0.0, 1.0, 0.0]]))
    d = slab_distances(CAM, rays, np.array([[2.0, 0.0, 0.0]]), np.eye(3)[None], np.array([[0.1, 0.2, 0.2]]))
    assert np.isclose(d[0], 1.9) and np.isclose(d[1], 1.9 * np.linalg.norm([1, 0.05])) and np.isinf(d[2])
    # an upright cylinder (axis z) of radius 0.1 at x = 2: the mantle at 1.9; above its top cap: missed
    rays = units(np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.2]]))
    d = cylinder_distances(CAM, rays, np.array([[2.0, 0.0, 0.0]]), np.array([[0.0, 0.0, 1.0]]),
                           np.array([0.1]), np.array([0.2]))
    assert np.isclose(d[0], 1.9) and np.isinf(d[1])
    # lying along x: the ray meets its cap
    d = cylinder_distances(CAM, rays[:1], np.array([[2.0, 0.0, 0.0]]), np.array([[1.0, 0.0, 0.0]]),
                           np.array([0.1]), np.array([0.2]))
    assert np.isclose(d[0], 1.8)


def test_a_wall_in_front_covers_all_and_one_beside_covers_nothing():
    target = _box((2.0, 0.0, 0.0), (0.05, 0.05, 0.05))
    surf = surface(target, np.array([2.0, 0.0, 0.0]), np.eye(3), np.array([0.05, 0.05, 0.05]), CAM)
    assert len(surf.points) > 0 and np.all(surf.weights > 0)
    assert coverage(_box((1.5, 0.0, 0.0), (0.01, 0.2, 0.2)), CAM, surf) == 1.0
    assert coverage(_box((1.5, 0.5, 0.0), (0.01, 0.2, 0.2)), CAM, surf) == 0.0
    half = coverage(_box((1.5, 0.1, 0.0), (0.01, 0.1, 0.2)), CAM, surf)
    assert 0.2 < half < 0.8


def test_a_blocker_behind_its_own_panel_covers_only_what_it_meets_first():
    """A blocker in a closed drawer: sight lines that meet the drawer's front panel before the
    blocker are the panel's (coverage's shield); one beyond the blocker changes nothing."""
    target = _box((2.0, 0.0, 0.0), (0.05, 0.05, 0.05))
    surf = surface(target, np.array([2.0, 0.0, 0.0]), np.eye(3), np.array([0.05, 0.05, 0.05]), CAM)
    blocker = _box((1.5, 0.0, 0.0), (0.01, 0.2, 0.2))
    assert coverage(blocker, CAM, surf, _box((1.4, 0.0, 0.0), (0.01, 0.3, 0.3))) == 0.0
    half_panel = _box((1.4, 0.15, 0.0), (0.01, 0.15, 0.3))  # covers the sight lines at y > 0
    assert 0.2 < coverage(blocker, CAM, surf, half_panel) < 0.8
    assert coverage(blocker, CAM, surf, _box((1.7, 0.0, 0.0), (0.01, 0.3, 0.3))) == 1.0


def test_a_short_blocker_grows_taller_until_it_hides_its_target_and_keeps_its_bottom():
    table = 0.75
    t_half = np.array([0.03, 0.03, 0.05])
    t_centre = np.array([0.0, 0.2, table + t_half[2]])
    b_half = np.array([0.03, 0.02, 0.01])  # a 2 cm flat thing right in front
    b_centre = np.array([-0.08, 0.2, table + b_half[2]])
    assert box_coverage(_box(b_centre, b_half), t_centre, t_half) < 0.5
    centre, half = grown_box(b_centre, b_half, t_centre, t_half)
    assert box_coverage(_box(centre, half), t_centre, t_half) >= GROW_COVER
    assert np.isclose(centre[2] - half[2], table) and half[2] > b_half[2]
    assert 2 * half[1] <= GRASP_WIDTH + 1e-9  # narrow enough to grasp, still hiding it
    assert head_viewpoint(0.2)[1] == 0.2


def test_a_raised_lid_stands_on_its_stop_from_the_back_edge():
    """The lid swings about the hinge on the body's back top edge to its stop (LID_OPEN): its
    free edge ends 2 * half-depth from the hinge, leaning toward the robot below upright."""
    from robograph_backends.sapien_tabletop.world import LID_OPEN

    centre, half = np.array([0.0, 0.0, 0.8]), np.array([0.1, 0.15, 0.02])
    lid = raised_lid(centre, half)
    panel_c, panel_rot, panel_half = lid.box_centres[1], lid.box_mats[1], lid.box_halves[1]
    top = panel_c + panel_rot @ np.array([-panel_half[0], 0.0, 0.0])  # the lid's free edge
    depth = 2 * half[0]
    assert np.isclose(top[0], half[0] - depth * np.cos(LID_OPEN), atol=0.01)
    assert np.isclose(top[2], centre[2] + half[2] + depth * np.sin(LID_OPEN), atol=0.01)
