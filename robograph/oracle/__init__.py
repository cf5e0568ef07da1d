"""The exact oracle: shortest plans under full knowledge (L_o), closed-loop oracle rollouts, the
ordered action distance C_distance of Appendix A and the task-state horizon (Definition 2).

See docs/oracle.md for the admissibility and relevance-pruning arguments."""

from robograph.oracle.distance import action_distance
from robograph.oracle.errors import OracleError
from robograph.oracle.rollout import oracle_rollout
from robograph.oracle.search import DEFAULT_MAX_EXPANSIONS, Plan, heuristic, solve
from robograph.oracle.tsh import TSH, tsh

__all__ = [
    "DEFAULT_MAX_EXPANSIONS",
    "OracleError",
    "Plan",
    "TSH",
    "action_distance",
    "heuristic",
    "oracle_rollout",
    "solve",
    "tsh",
]
