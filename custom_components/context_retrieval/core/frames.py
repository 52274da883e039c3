"""Conversation frames: a follow-up that says only part of a command takes the rest from the last one.

主卫的也开 after 打开客厅的灯 means the lights of 主卫; 那卧室的呢 after 客厅温度多少 asks the
temperature of 卧室; 主灯也一样 after 打开落地灯 turns on 主灯. The last command is kept with
the last-mentioned devices (``ConversationState``) and expires with them.
"""

from __future__ import annotations

from dataclasses import replace

from .models import ANY_NAME, ANY_ROOM, LAST_MENTIONED, UNKNOWN_ACTION, UNKNOWN_CATEGORY, Command, Quantifier
from .text import compact

FOLLOW_UP_MARKERS = ("也", "一样", "还有", "呢", "同样", "照样")
"""Words that say an utterance goes on from the last one (也, 呢): it may leave the rest unsaid."""


def with_frame(command: Command, last: Command | None, text: str) -> Command:
    """Return ``command`` completed from the ``last`` one when it says only a room or only a name."""
    if last is None or last.a == UNKNOWN_ACTION or last.n in {ANY_NAME, LAST_MENTIONED}:
        return command
    said = compact(text)  # in any variety: Cantonese 纱帘都系 is 纱帘也一样
    goes_on = any(marker in said for marker in FOLLOW_UP_MARKERS)
    rooms_only = (
        command.n == ANY_NAME
        and command.t == UNKNOWN_CATEGORY
        and command.s != ANY_ROOM
        and not command.s.startswith("!")
    )
    if rooms_only and (goes_on or command.a != UNKNOWN_ACTION):
        quantifier = Quantifier.ALL if last.q == Quantifier.EXCEPT else last.q
        action = last.a if command.a == UNKNOWN_ACTION else command.a
        return replace(command, a=action, n=last.n, t=last.t, q=quantifier)
    if command.a == UNKNOWN_ACTION and command.n not in {ANY_NAME, LAST_MENTIONED} and goes_on:
        return replace(command, a=last.a)
    return command
