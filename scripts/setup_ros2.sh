#!/usr/bin/env bash
# Build .venv-ros2: ROS 2 Jazzy (rclpy over Fast DDS) from exact-pinned wheels, MCAP writers, the
# robograph project itself with the extras the robot side simulates with (ROBOGRAPH_ROS2_EXTRAS,
# default "mujoco": robot_sim --backend mujoco), and two interface packages compiled with Debian
# cmake/gcc: robograph_interfaces (ExecuteSkill action, perception service) and tf2_msgs (only
# TFMessage, for /tf and /tf_static: no tf2_msgs wheel exists). ROS 2 lives in its own venv because
# the wheels' .pth bootstrapper re-executes every interpreter start in it. Idempotent: a stamp over
# this script, the interface sources and pyproject.toml makes a second run return at once.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
venv="${ROBOGRAPH_ROS2_VENV:-$root/.venv-ros2}"
ifaces_dir="$root/ros_bridge/interfaces"
iface_pkgs=(tf2_msgs robograph_interfaces)  # build order: robograph_interfaces may use tf2_msgs
extras="${ROBOGRAPH_ROS2_EXTRAS-mujoco}"
J=jazzy
ros_pkgs=(
  "ros-$J-rclpy[fastrtps]==7.1.6" "ros-$J-std-msgs==5.3.6" "ros-$J-sensor-msgs==5.3.6"
  "ros-$J-geometry-msgs==5.3.6" "ros-$J-action-msgs==2.0.3" "ros-$J-builtin-interfaces==2.0.3"
  "ros-$J-unique-identifier-msgs==2.5.0" "ros-$J-service-msgs==2.0.3"
  # interface generation (rosidl + ament cmake)
  "ros-$J-rosidl-default-generators==1.6.0" "ros-$J-ament-cmake==2.5.4" "ros-$J-ament-package==0.16.4"
  "catkin-pkg==1.1.1" "ros-$J-ament-cmake-include-directories==2.5.4" "ros-$J-ament-cmake-ros==0.12.0"
  "ros-$J-python-cmake-module==0.11.1" "ros-$J-ament-cmake-gtest==2.5.4" "ros-$J-ament-cmake-gmock==2.5.4"
  "ros-$J-ament-cmake-pytest==2.5.4" "ros-$J-rosidl-core-generators==0.2.0" "ros-$J-domain-coordinator==0.12.0"
  # recording; CompressedImage (JPEG/PNG) coding
  "mcap==1.6.0" "mcap-ros2-support==0.6.0" "pillow>=10"
  # the bridge tests run in this venv (tests/test_ros2_bridge.py re-runs itself here); a second DDS
  # vendor (Eclipse Cyclone DDS, its Python binding bundles the C library) for the cross-vendor test
  "pytest==9.2.0" "cyclonedds==11.0.1"
)
# Two stamps: the wheels + project install (this script, pyproject.toml) and the interface build
# (this script, the interface sources), so a change to one does not redo the other.
pip_stamp="$venv/.robograph-ros2-pip-$( (cat "$0" pyproject.toml; echo "$extras") | sha1sum | cut -c1-12)"
iface_stamp="$venv/.robograph-ros2-iface-$(cat "$0" "$ifaces_dir"/*/CMakeLists.txt "$ifaces_dir"/*/package.xml \
  "$ifaces_dir"/*/*/* | sha1sum | cut -c1-12)"
if [ -f "$pip_stamp" ] && [ -f "$iface_stamp" ]; then
  exit 0
fi
t0=$(date +%s)
if ! command -v cmake >/dev/null || ! command -v g++ >/dev/null; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    apt-get update && apt-get install -y cmake g++ make
  else
    echo "setup_ros2.sh: cmake and g++ are needed to build robograph_interfaces (apt-get install cmake g++)" >&2
    exit 1
  fi
fi
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
py="$venv/bin/python"
if [ ! -f "$pip_stamp" ]; then
  "$py" -m pip install -q --upgrade pip
  "$py" -m pip install -q "${ros_pkgs[@]}"
  # robograph itself, with the simulators robot_sim may drive (mujoco: ~30 s from a warm cache)
  "$py" -m pip install -q -e "$root${extras:+[$extras]}"
  rm -f "$venv"/.robograph-ros2-pip-*
  touch "$pip_stamp"
fi
if [ -f "$iface_stamp" ]; then
  echo "setup_ros2.sh: $venv ready in $(( $(date +%s) - t0 )) s" >&2
  exit 0
fi
pyinc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
npinc=$("$py" -c 'import numpy; print(numpy.get_include())')
# The wheels were built in another Python prefix (and against numpy 2's _core headers): point their
# cmake configs at this interpreter's headers and numpy's.
grep -rlE --include='*.cmake' 'include/python3\.[0-9]+|site-packages/numpy/_?core/include' "$venv/share" 2>/dev/null \
  | while read -r f; do
    sed -i -E -e "s#[^;\" ]*/site-packages/numpy/_?core/include#${npinc}#g" \
      -e "s#[^;\" ]*/include/python3\.[0-9]+#${pyinc}#g" "$f"
  done
for pkg in "${iface_pkgs[@]}"; do
  build="$venv/build/$pkg"
  rm -rf "$build" && mkdir -p "$build"
  (
    export AMENT_PREFIX_PATH="$venv" CMAKE_PREFIX_PATH="$venv" PATH="$venv/bin:$PATH"
    cd "$build"
    cmake "$ifaces_dir/$pkg" -DCMAKE_INSTALL_PREFIX="$venv" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
      -DPython3_EXECUTABLE="$py" -DPYTHON_EXECUTABLE="$py" -DPython3_FIND_VIRTUALENV=ONLY >cmake.log 2>&1 \
      || { tail -40 cmake.log >&2; exit 1; }
    cmake --build . -j"$(nproc)" >build.log 2>&1 || { tail -40 build.log >&2; exit 1; }
    cmake --install . >install.log 2>&1 || { tail -40 install.log >&2; exit 1; }
  )
done
"$py" -c 'from robograph_interfaces.action import ExecuteSkill; from robograph_interfaces.srv import GetWorldState
from tf2_msgs.msg import TFMessage'
rm -f "$venv"/.robograph-ros2-iface-*
touch "$iface_stamp"
echo "setup_ros2.sh: $venv ready in $(( $(date +%s) - t0 )) s" >&2
