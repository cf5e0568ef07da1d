"""calibration layer (see DESIGN.md)."""
