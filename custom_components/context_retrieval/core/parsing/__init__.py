"""Parse an utterance into wire commands (CONTRACT §1) and read them as QueryIR."""

from .ir import REFERENCE_LAST_MENTIONED, command_to_ir, parse_scope
from .offline import OfflineParser, parse_offline
from .prompt import DEFAULT_SYSTEM_PROMPT, build_system_prompt
from .wire import ParseOutcome, parse_commands

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "REFERENCE_LAST_MENTIONED",
    "OfflineParser",
    "ParseOutcome",
    "build_system_prompt",
    "command_to_ir",
    "parse_commands",
    "parse_offline",
    "parse_scope",
]
