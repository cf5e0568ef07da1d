"""The closed-loop evaluation harness: Appendix B payloads, reply parsing, agents, runner."""

from robograph.harness.parse import ParsedResponse, ParseFailure, parse_response
from robograph.harness.payload import SYSTEM_PROMPT, build_payload

__all__ = ["SYSTEM_PROMPT", "ParseFailure", "ParsedResponse", "build_payload", "parse_response"]
