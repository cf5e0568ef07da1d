"""The visual loop end to end on the MuJoCo kitchen: real rendering, real images through the
official openai SDK to a local OpenAI-compatible server, rollout media from the same frames."""

from __future__ import annotations

import base64
import io
import json

import pytest
from chat_server import completion, serve

from robograph.agents.base import Reply, Request
from robograph.agents.openai_agent import ClientConfig, OpenAIAgent
from robograph.harness.media import BORDER_COLOURS, BORDER_PX, contact_sheet, write_rollout_media
from robograph.harness.observe import ObservationSpec
from robograph.harness.rollout import RolloutOptions, run_rollout
from robograph_backends.symbolic import SymbolicBackend

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("requires_mujoco")]

REPLIES = [
    json.dumps({"action": {"name": "observe"}}),
    json.dumps({"action": {"name": "open", "node_ids": ["ketchup"]}}),  # not openable: fails
    json.dumps({"action": {"name": "stop"}}),
]


class Recording:
    name = "recording"
    privileged = False

    def __init__(self) -> None:
        self.requests: list[Request] = []

    def reset(self, seed: int) -> None:
        pass

    def act(self, request: Request) -> Reply:
        self.requests.append(request)
        return Reply(REPLIES[len(self.requests) - 1])


@pytest.fixture(scope="module")
def visual_rollout():
    from robograph_backends.mujoco_kitchen import MujocoKitchenBackend
    from robograph_backends.mujoco_kitchen.samples import indoor_samples

    inst = indoor_samples()[0]
    server_gen = serve()
    server = next(server_gen)
    server.script = [completion(text) for text in REPLIES]
    agent = OpenAIAgent(ClientConfig(base_url=server.base_url, api_key="sk-test", model="vlm", backoff=0.01))
    backend = MujocoKitchenBackend()
    try:
        options = RolloutOptions(ObservationSpec("visual", "jpeg", 200), media=True)
        out = run_rollout(inst, agent, backend, seed=0, options=options)
    finally:
        backend.close()
        next(server_gen, None)
    symbolic = Recording()
    run_rollout(inst, symbolic, SymbolicBackend(), seed=0)
    return inst, out, server, symbolic


def test_the_request_carries_three_labelled_camera_images(visual_rollout):
    from PIL import Image

    _, out, server, _ = visual_rollout
    assert len(server.requests) == 3
    parts = server.requests[0]["messages"][1]["content"]
    images = [p for p in parts if p["type"] == "image_url"]
    labels = [p["text"] for p in parts[1:] if p["type"] == "text"]
    assert len(images) == 3 and labels == ["camera: head", "camera: left", "camera: right"]
    for part in images:
        head, data = part["image_url"]["url"].split(",", 1)
        assert head == "data:image/jpeg;base64"
        img = Image.open(io.BytesIO(base64.b64decode(data)))
        assert img.format == "JPEG" and max(img.size) == 200  # the configured size
    assert [r.prompt_tokens for r in out.replies] == [11, 11, 11]
    assert all(r.latency_s > 0 for r in out.replies)


def test_visual_payload_equals_the_symbolic_one_except_the_observation(visual_rollout):
    _, _, server, symbolic = visual_rollout
    for body, sym in zip(server.requests, symbolic.requests, strict=True):
        assert body["messages"][0]["content"] == sym.system
        visual = json.loads(body["messages"][1]["content"][0]["text"])
        expected = json.loads(json.dumps(sym.payload))
        assert list(visual) == list(expected)
        assert {k: v for k, v in visual.items() if k != "current_observation"} == \
            {k: v for k, v in expected.items() if k != "current_observation"}
        assert [c["camera"] for c in visual["current_observation"]["cameras"]] == ["head", "left", "right"]
        assert "visible_nodes" not in visual["current_observation"]


def test_contact_sheet_tiles_are_coloured_by_outcome(visual_rollout, tmp_path):
    _, out, _, _ = visual_rollout
    assert [f.status for f in out.frames] == ["initial", "success", "failure", "success"]
    sheet = contact_sheet(out.frames, columns=4)
    cell = sheet.width // 4
    colours = [sheet.getpixel((i * cell + BORDER_PX // 2, BORDER_PX // 2)) for i in range(4)]
    assert colours == [BORDER_COLOURS[s] for s in ("initial", "success", "failure", "success")]
    paths = write_rollout_media(out.frames, tmp_path)
    assert [p.name for p in paths] == ["contact_sheet.png", "rollout.mp4"]
    assert paths[1].read_bytes()[4:8] == b"ftyp"  # an MP4 container
    timing = out.timing.per_step[0].to_json()
    assert timing["render_ms"] > 0 and timing["encode_ms"] > 0 and timing["physics_ms"] >= 0


def test_a_visual_run_through_the_runner_writes_media_and_timing(tmp_path):
    from robograph.harness.runner import RunSpec, run
    from robograph.harness.store import LOG, RESULTS, read_jsonl
    from robograph_backends.mujoco_kitchen.samples import indoor_samples

    inst = indoor_samples()[0]
    inst.save(tmp_path / "mj.json")
    options = RolloutOptions(ObservationSpec("both", "png", 160), media=True)
    spec = RunSpec(str(tmp_path / "mj.json"), "random", str(tmp_path / "run"), backend="mujoco", workers=1,
                   agent_options={"seed": 0}, progress=False, durable=False, options=options,
                   media=str(tmp_path / "media"))
    # the random agent acts on the graph of `both` mode; a short budget keeps this quick
    object.__setattr__(inst, "step_budget", 3)
    inst.save(tmp_path / "mj.json")
    run(spec)
    steps = [r for r in read_jsonl(tmp_path / "run" / LOG) if r["type"] == "step"]
    assert steps and all({"render_ms", "encode_ms", "agent_ms", "physics_ms"} <= set(r["measured"]) for r in steps)
    assert all("measured" not in r for r in read_jsonl(tmp_path / "run" / RESULTS))
    sheet = tmp_path / "media" / "mj_seed0" / "contact_sheet.png"
    assert sheet.is_file() and (sheet.parent / "rollout.mp4").is_file()
