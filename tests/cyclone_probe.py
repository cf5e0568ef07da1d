"""A second DDS implementation on the wire: Eclipse Cyclone DDS (its Python binding, no ROS) reads
and writes the robot contract's DDS topics, so a test sees that the bridge and the robot side
speak real ROS 2 to a vendor other than their own Fast DDS.

Run as a child process (`python tests/cyclone_probe.py ROBOT`) in the ROS venv: it prints
"ready", then one JSON line per sample it takes from the robot's heartbeat and from the
ExecuteSkill action's feedback and status topics; stdin lines `estop true` / `estop false`
publish std_msgs/Bool on the e-stop topic; `goal REQUEST_ID ACTION NODE...` sends an ExecuteSkill
goal (the action's send_goal request, a plain DDS sample); `quit` ends it. The types below are the ROS 2 IDL
mappings (`pkg::msg::dds_::Type_`, topics prefixed `rt/`) written by hand from the .msg files.
"""

# no `from __future__ import annotations`: Cyclone's IDL reads the field types from live annotations
import json
import os
import sys
import threading
import time
import uuid
from dataclasses import dataclass

from cyclonedds.core import Qos
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.annotations import final
from cyclonedds.idl.types import array, float32, float64, int8, int32, sequence, uint8, uint32
from cyclonedds.pub import DataWriter
from cyclonedds.qos import Policy
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic


@final
@dataclass
class Time_(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32
    nanosec: uint32


@final
@dataclass
class Bool_(IdlStruct, typename="std_msgs::msg::dds_::Bool_"):
    data: bool


@final
@dataclass
class Heartbeat_(IdlStruct, typename="robograph_interfaces::msg::dds_::Heartbeat_"):
    stamp: Time_
    robot_name: str
    estopped: bool
    active_request_id: str


@final
@dataclass
class UUID_(IdlStruct, typename="unique_identifier_msgs::msg::dds_::UUID_"):
    uuid: array[uint8, 16]


@final
@dataclass
class ExecuteSkill_Feedback_(IdlStruct, typename="robograph_interfaces::action::dds_::ExecuteSkill_Feedback_"):
    phase: str
    progress: float32


@final
@dataclass
class ExecuteSkill_FeedbackMessage_(IdlStruct,
                                    typename="robograph_interfaces::action::dds_::ExecuteSkill_FeedbackMessage_"):
    goal_id: UUID_
    feedback: ExecuteSkill_Feedback_


@final
@dataclass
class ExecuteSkill_Goal_(IdlStruct, typename="robograph_interfaces::action::dds_::ExecuteSkill_Goal_"):
    request_id: str
    action: str
    node_ids: sequence[str]
    expected_delta_json: str
    deadline_s: float64


@final
@dataclass
class ExecuteSkill_SendGoal_Request_(IdlStruct,
                                     typename="robograph_interfaces::action::dds_::ExecuteSkill_SendGoal_Request_"):
    goal_id: UUID_
    goal: ExecuteSkill_Goal_


@final
@dataclass
class ExecuteSkill_SendGoal_Response_(IdlStruct,
                                      typename="robograph_interfaces::action::dds_::ExecuteSkill_SendGoal_Response_"):
    accepted: bool
    stamp: Time_


@final
@dataclass
class GoalInfo_(IdlStruct, typename="action_msgs::msg::dds_::GoalInfo_"):
    goal_id: UUID_
    stamp: Time_


@final
@dataclass
class GoalStatus_(IdlStruct, typename="action_msgs::msg::dds_::GoalStatus_"):
    goal_info: GoalInfo_
    status: int8


@final
@dataclass
class GoalStatusArray_(IdlStruct, typename="action_msgs::msg::dds_::GoalStatusArray_"):
    status_list: sequence[GoalStatus_]


# Fast DDS on loopback (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST) discovers by unicast to 127.0.0.1;
# Cyclone is told to do the same on the loopback interface.
CYCLONE_LOOPBACK = """<CycloneDDS><Domain Id="any"><General><Interfaces><NetworkInterface name="lo"/></Interfaces>
<AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex>
<MaxAutoParticipantIndex>60</MaxAutoParticipantIndex><Peers><Peer address="127.0.0.1"/></Peers></Discovery>
</Domain></CycloneDDS>"""


def _emit(record: dict) -> None:
    sys.stdout.write(json.dumps(record, sort_keys=True) + "\n")
    sys.stdout.flush()


def main(robot: str) -> int:
    os.environ.setdefault("CYCLONEDDS_URI", CYCLONE_LOOPBACK)
    dp = DomainParticipant(int(os.environ.get("ROS_DOMAIN_ID", "0")))
    reliable = Qos(Policy.Reliability.Reliable(0), Policy.History.KeepLast(50))
    readers = {
        "heartbeat": DataReader(dp, Topic(dp, f"rt/{robot}/heartbeat", Heartbeat_), qos=reliable),
        "feedback": DataReader(dp, Topic(dp, f"rt/{robot}/execute_skill/_action/feedback",
                                          ExecuteSkill_FeedbackMessage_), qos=reliable),
        "status": DataReader(dp, Topic(dp, f"rt/{robot}/execute_skill/_action/status", GoalStatusArray_),
                             qos=reliable),
        "send_goal_reply": DataReader(dp, Topic(dp, f"rr/{robot}/execute_skill/_action/send_goalReply",
                                                ExecuteSkill_SendGoal_Response_), qos=reliable),
    }
    send_goal = DataWriter(dp, Topic(dp, f"rq/{robot}/execute_skill/_action/send_goalRequest",
                                     ExecuteSkill_SendGoal_Request_), qos=reliable)
    estop = DataWriter(dp, Topic(dp, f"rt/{robot}/estop", Bool_), qos=Qos(Policy.Reliability.Reliable(0)))
    stop = threading.Event()

    def commands() -> None:
        for line in sys.stdin:
            words = line.split()
            if words[:1] == ["estop"]:
                estop.write(Bool_(data=words[1] == "true"))
                _emit({"topic": "estop_sent", "data": words[1] == "true"})
            elif words[:1] == ["goal"]:  # goal REQUEST_ID ACTION NODE...: a goal from this vendor
                gid = uuid.uuid4().bytes
                send_goal.write(ExecuteSkill_SendGoal_Request_(
                    goal_id=UUID_(uuid=list(gid)),
                    goal=ExecuteSkill_Goal_(request_id=words[1], action=words[2], node_ids=words[3:],
                                            expected_delta_json="[]", deadline_s=0.0)))
                _emit({"topic": "goal_sent", "goal_id": gid.hex(), "request_id": words[1]})
            elif words[:1] == ["quit"]:
                break
        stop.set()

    threading.Thread(target=commands, daemon=True).start()
    _emit({"topic": "ready"})
    while not stop.is_set():
        for name, reader in readers.items():
            for s in reader.take(N=50):
                if name == "heartbeat":
                    _emit({"topic": name, "robot_name": s.robot_name, "estopped": s.estopped,
                           "estop_subscribers": len(estop.get_matched_subscriptions())})
                elif name == "feedback":
                    _emit({"topic": name, "goal_id": bytes(s.goal_id.uuid).hex(), "phase": s.feedback.phase,
                           "progress": round(float(s.feedback.progress), 3)})
                elif name == "send_goal_reply":
                    _emit({"topic": name, "accepted": bool(s.accepted)})
                else:
                    _emit({"topic": name, "goals": {bytes(g.goal_info.goal_id.uuid).hex(): int(g.status)
                                                    for g in s.status_list}})
        time.sleep(0.02)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
