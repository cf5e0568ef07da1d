from robograph import Action, Episode, load_instance
from robograph.gym_env import demo_instance_path
from robograph.registry import make_backend


def test_demo_instance_loads_and_steps():
    inst = load_instance(demo_instance_path())
    ep = Episode(inst, make_backend("symbolic"))
    view = ep.reset(0)
    assert "red_pen" not in view.visible  # occluded by the book
    rec = ep.step(Action("move_aside", ("book",)))
    assert rec.ok and "red_pen" in rec.visible
