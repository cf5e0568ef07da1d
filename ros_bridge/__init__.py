"""ros_bridge layer (see DESIGN.md)."""
