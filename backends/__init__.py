"""Backends that realize RoboGraph instances: symbolic, MuJoCo kitchen, SAPIEN tabletop.

They are registered as `robograph.backends` entry points in pyproject.toml, so the core finds
them by name without importing any simulator until one is chosen.
"""
