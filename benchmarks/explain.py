"""Explain what the offline agent makes of utterances on a labelled home: parse, candidates, decision, reply.

``python -m benchmarks.explain agent_h 打開細路房抽濕機 熄咗佢`` runs the utterances in one
conversation on that set's home (offline, no delegate) and prints, per turn, the parsed
commands, the top candidates with their reasons, the hint, the engine's meta, the calls the
agent made and what it said. For reading a set's misses once it is tuned on; never on a
held-out or sealed set.
"""

from __future__ import annotations

import argparse
import asyncio

from homeassistant.components import conversation
from homeassistant.core import Context

from custom_components.context_retrieval.core.parsing.offline import _tokenize, value_spans
from custom_components.context_retrieval.core.text import compact
from custom_components.context_retrieval.retrieval import async_run_retrieval

from .agent import AGENT, DATA, _as_call, async_agent_home

MAX_CANDIDATES = 4
NEW_CONVERSATION = "/"


async def _async_explain(set_name: str, utterances: list[str]) -> None:
    async with async_agent_home(DATA / set_name) as (hass, recorder, entry):
        conversations = 0
        conversation_id = "explain-0"
        for text in utterances:
            if text == NEW_CONVERSATION:
                conversations += 1
                conversation_id = f"explain-{conversations}"
                continue
            retrieval = await async_run_retrieval(
                entry.runtime_data, text, conversation_id=f"{conversation_id}-preview", offline=True
            )
            print(f"\n>>> {text}")
            index = entry.runtime_data.index.current.index
            spoken = index.home_words.separate(text)
            heard, _ = index.word_sounds.respell(spoken, value_spans(spoken))
            tokens = _tokenize(compact(heard), index.offline_parser)
            print(f"  tokens {[(token.kind.name, token.text) for token in tokens]}")
            for result in retrieval.results:
                print(f"  command {result.command.to_dict()}")
                meta = {key: value for key, value in result.meta.items() if key != "timings_ms"}
                print(f"  hint={result.hint} meta={meta}")
                for candidate in result.candidates[:MAX_CANDIDATES]:
                    print(
                        f"    {candidate.entity_id} {candidate.capability_id} {candidate.total_score:.3f} "
                        f"{list(candidate.reasons)}"
                    )
            recorder.calls.clear()
            reply = await conversation.async_converse(
                hass,
                text,
                conversation_id,
                Context(),
                language="zh-Hans",
                agent_id=AGENT,
            )
            await hass.async_block_till_done()
            # The preview ran in a conversation of its own: the agent's keeps the dialogue's memory.
            print(f"  calls: {[_as_call(call) for call in recorder.calls]}")
            print(f"  said: {reply.response.speech.get('plain', {}).get('speech', '')}")


def main() -> None:
    """Run ``python -m benchmarks.explain SET UTTERANCE...``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("set", help="a set under benchmarks/data (agent_h)")
    parser.add_argument("utterances", nargs="+", help="turns of one conversation; / starts another")
    args = parser.parse_args()
    asyncio.run(_async_explain(args.set, args.utterances))


if __name__ == "__main__":
    main()
