"""RoboGraph: executable scene graphs for task-state-horizon evaluation of embodied agents.

Pure Python: no simulator is imported from this package.
"""

from robograph import gym_env as _gym_env
from robograph.actions import CATALOG, Action, ActionSchema
from robograph.facts import Fact, Goal, parse_fact
from robograph.graph import Edge, Node, SceneGraph
from robograph.instance import TaskInstance, load_instance
from robograph.runtime import Episode, StepRecord, Trace

__version__ = "0.1.0"

_gym_env.register()

__all__ = [
    "CATALOG",
    "Action",
    "ActionSchema",
    "Edge",
    "Episode",
    "Fact",
    "Goal",
    "Node",
    "SceneGraph",
    "StepRecord",
    "TaskInstance",
    "Trace",
    "load_instance",
    "parse_fact",
]
