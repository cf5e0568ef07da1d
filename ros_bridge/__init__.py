"""ros_bridge: RoboGraph over ROS 2 (see docs/ros2.md).

`robot_sim` is the robot side (an ExecuteSkill action server plus perception, images and a
heartbeat, driven by a simulator backend); `backend` is the `ros2` backend, a client of any robot
that speaks the same contract. Everything that needs rclpy imports it lazily, so this package
imports (and the CLI lists `validate-robot`) without ROS 2 installed.
"""
