"""Metrics of the paper (SR, SSAL, NGP, AER, RAR, SEG, ADR, IRR + latency, F1@RD, Acc@RG,
Delta-SR, termination distribution) computed on the latent graph; formulas in docs/metrics.md."""

from robograph.metrics.aggregate import json_summary, spearman, summarize
from robograph.metrics.rollout import rollout_metrics
from robograph.metrics.trace import RolloutTrace, StepState

__all__ = ["RolloutTrace", "StepState", "json_summary", "rollout_metrics", "spearman", "summarize"]
