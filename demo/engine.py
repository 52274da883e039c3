"""Command-line demo: the engine alone (no Home Assistant) on the bundled demo home.

``python -m demo.engine 打开客厅的灯 把它关掉`` treats the utterances as one conversation.
With ``LLM_BASE_URL`` (and ``LLM_API_KEY``, ``LLM_MODEL``) set it parses with that
OpenAI-compatible endpoint, otherwise offline.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import TYPE_CHECKING

import aiohttp

from custom_components.context_retrieval.clients.openai_chat import (
    ChatError,
    OpenAICompatibleChat,
    PrefetchedAnswer,
)
from custom_components.context_retrieval.core import (
    DEFAULT_TOP_K,
    ConversationState,
    Device,
    RetrievalResult,
    build_vector_searcher,
    render_yaml_context,
    retrieve,
)
from custom_components.context_retrieval.demo_home import load_demo_home
from demo.report import emit

if TYPE_CHECKING:
    from collections.abc import Sequence

SAMPLE_UTTERANCES = ("打开客厅的灯", "把它调到50%", "除了卧室以外的灯都关掉", "打开老伙计", "客厅温度多少")
DEFAULT_LLM_MODEL = "qwen-flash"


async def fetch_parse(system_prompt: str, text: str) -> PrefetchedAnswer | None:
    """Return the configured LLM's answer (or its error), None when no LLM is configured."""
    base_url = os.environ.get("LLM_BASE_URL")
    if not base_url:
        return None
    async with aiohttp.ClientSession() as session:
        chat = OpenAICompatibleChat(
            session,
            base_url,
            os.environ.get("LLM_API_KEY", ""),
            os.environ.get("LLM_MODEL", DEFAULT_LLM_MODEL),
        )
        try:
            return PrefetchedAnswer(await chat.async_complete(system_prompt, text))
        except ChatError as err:
            return PrefetchedAnswer(error=err)


def format_results(results: Sequence[RetrievalResult], devices: Sequence[Device]) -> str:
    """Return a readable listing of the parsed commands and their candidates."""
    by_id = {device.id: device for device in devices}
    lines = []
    for number, result in enumerate(results, 1):
        parse = result.meta.get("parse")
        lines.append(f"命令 {number}: {result.command.to_dict()}  (parse: {parse}, hint: {result.hint})")
        for rank, candidate in enumerate(result.candidates, 1):
            if candidate.entity_kind == "group":
                group = result.groups[candidate.entity_id]
                members = "、".join(f"{by_id[i].room}/{by_id[i].name}" for i in group.device_ids)
                label = f"{candidate.entity_id} [{members}]"
            else:
                device = by_id[candidate.entity_id]
                label = f"{device.room}/{device.name} ({device.id})"
            lines.append(
                f"  {rank}. {label} -> {candidate.capability_id}  score={candidate.total_score:.3f}"
                f" (keyword {candidate.keyword_score:.2f}, vector {candidate.vector_score:.2f})"
                f" {candidate.reasons}"
            )
        if not result.candidates:
            lines.append("  (no candidates)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the demo on the given utterances (or a few samples) and print everything."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("utterances", nargs="*", help="utterances of one conversation")
    parser.add_argument("--top-k", type=int, default=DEFAULT_TOP_K)
    args = parser.parse_args(argv)
    devices = load_demo_home()
    index = build_vector_searcher(devices)
    state = ConversationState()
    for text in args.utterances or SAMPLE_UTTERANCES:
        llm = asyncio.run(fetch_parse(index.system_prompt, text))
        results = retrieve(text, devices, llm, state, top_k=args.top_k, vector_searcher=index)
        emit(f"== {text}")
        emit(format_results(results, devices))
        emit(render_yaml_context(results, devices))
    return 0


if __name__ == "__main__":
    sys.exit(main())
