"""skills layer (see DESIGN.md)."""
