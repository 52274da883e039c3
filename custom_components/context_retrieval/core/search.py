"""Retrieval of one parsed command: scope, category gate, hybrid recall, capabilities, groups."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np

from .bulk import TOO_MANY_TARGETS, bound_groups, group_name, group_targets
from .fusion import (
    CAPABILITY_MIN_SIMILARITY,
    GATED_WEIGHTS,
    ROOM_BONUS,
    TYPE_BONUS,
    UNGATED_WEIGHTS,
    ActionValue,
    CapabilityChoice,
    VectorQuery,
    choose_capability,
    is_capable,
    takes_argument,
    vector_query_for,
)
from .gating import (
    CATEGORY_WORDS,
    GENERIC_TYPE_WORDS,
    TYPE_WORDS,
    category_for_type_hint,
    in_category,
    is_apart,
    is_kind_word,
    is_type_word,
    names_a_thing_apart,
)
from .keyword import CONTAINED_BASE_SCORE, EXACT_NAME_SCORE, MIN_NAME_SCORE
from .models import (
    ANY_NAME,
    ANY_ROOM,
    LAST_ROOM,
    UNKNOWN_ACTION,
    UNKNOWN_COMMAND,
    Candidate,
    Command,
    Group,
    Quantifier,
    QueryIR,
    RetrievalResult,
)
from .parsing import REFERENCE_LAST_MENTIONED, command_to_ir
from .parsing.offline import ACTION_QUERY, DEFAULT_QUERY_ATTRIBUTE, SPEAKERS_ROOM_WORDS, relative_direction
from .scope import without_side
from .text import compact

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from .home_index import HomeIndex
    from .state import ConversationState

MAX_TOP_K = 50
MAX_COMMANDS = 10
"""Most commands one utterance is read into; the rest are dropped (``meta["commands_dropped"]``)."""
TYPE_NAME_SCORE = 0.5
"""Keyword score of a device whose category is the bare type word said (灯 -> every Light).

Below any name that contains the word (CONTAINED_BASE_SCORE): 小爱音箱 is more an 音箱 than a
projector of the NetworkAudio category is."""


class NameMatch(NamedTuple):
    """How well a device's name (or alias, or category for a type word) matches."""

    score: float
    via: Literal["name", "alias", "type"]


NO_MATCH = NameMatch(0.0, "name")
NAMED_BY_DEED = ("Scene",)
"""Categories named by what they do, not what they are: a scene called 全屋关灯 is no light."""
ALL_WORDS = ("所有", "全部", "全都", "每个", "每一个", "全屋", "一切", "都", "全关", "全开")
"""Words that make a single type-word command mean every such device."""
HOME_WORDS = ("家里", "屋里", "屋头", "屋企")
"""Words saying the whole home (屋里的灯全关了): a set over every room is what was asked."""
MIN_HEARD_SLOT = 2
"""Characters a room or name slot needs to be matched against a word heard (灯 alone is in every light's)."""
CLOSE_MATCH_MARGIN = 0.1
"""Top-1 and top-2 closer than this get ``hint: multiple_close_matches`` (seed 002 §3.3)."""


def _asked_of_a_room(command: Command) -> bool:
    """Return True for a question naming the room it asks of (浩浩房间的灯关了冇), not a guessed set."""
    rooms = [room for room in command.s.split(",") if room and room not in {ANY_ROOM, LAST_ROOM}]
    return command.a.startswith(ACTION_QUERY) and bool(rooms) and not any(r.startswith("!") for r in rooms)


def close_matches(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Return the device candidates as close to the top one as the margin for close matches."""
    if not candidates:
        return []
    best = candidates[0].total_score
    return [c for c in candidates if c.entity_kind == "device" and best - c.total_score < CLOSE_MATCH_MARGIN]


PART_OF_THE_LAST = "part_of_last"
"""Reason (and ``meta`` key) of a device of the appliance just acted on, said by its kind (灯也开开)."""
ANSWERED_REFERENCE = "reference_answered"
"""``meta`` key of a bare command after a question the last turn answered of several devices."""
RECENT_REFERENCE = "recent"
"""``meta["reference"]`` of a set made of what the conversation's last few turns mentioned."""


def says_all(text: str) -> bool:
    """Return True when the utterance has an all-word, in any variety (闩晒 is 全部关掉; 都系 has none)."""
    said = compact(text)
    return any(word in said for word in ALL_WORDS)


def says_whole_home(text: str) -> bool:
    """Return True when the utterance names the whole home (家里, 屋里) or has an all-word."""
    said = compact(text)
    return says_all(text) or any(word in said for word in HOME_WORDS)


STATE_QUESTION = ACTION_QUERY + DEFAULT_QUERY_ATTRIBUTE
"""The wire action asking a device's state (查询状态: is it on, open, playing)."""
MULTIPLE_CLOSE_MATCHES = "multiple_close_matches"
NO_CANDIDATES = "no_candidates"
NAME_NOT_FOUND = "name_not_found"
"""No device is called what the user said; the candidates only match the action."""
NO_TARGET = "no_target"
"""The command names no device and nothing was mentioned before it (关掉 out of the blue)."""
VALUE_REFERENCE = "value_listed"
"""How a command naming nothing found its devices: those listing the value said (转去 ViuTV)."""
MAX_LISTING = 3
"""Devices listing a value said that are still a question of which (more: the value names no device)."""
COMMAND_NOT_READ = "command_not_read"
"""No action could be read from the utterance: the candidates only resemble its words."""
VALUE_NOT_TAKEN = "value_not_taken"
"""The action says a value or a direction the chosen command does not take (风扇调到最大 on a fan
that only switches: a toggle would drop the value)."""
SAID_NAME_WEIGHT = 0.05
"""Keyword score for an utterance that says all of a device's name: a tie-breaker, a quarter of a room."""
BULK_NAME_MIN = 0.6
"""A bulk command with a specific name (所有台灯) keeps targets whose name contains it."""


def _outranking_span(keyword_weight: float, vector_weight: float) -> float:
    """Return a keyword score larger than any difference of room, type, name and action evidence."""
    return ROOM_BONUS + TYPE_BONUS + 2 * EXACT_NAME_SCORE + 2 * vector_weight / keyword_weight


@dataclass(slots=True)
class CommandSearch:
    """Retrieval of one command against one home (scope, gate, recall, fusion, groups)."""

    index: HomeIndex
    ir: QueryIR
    top_k: int
    state: ConversationState
    group_ids: Iterator[str]
    meta: dict[str, Any] = field(default_factory=dict)
    query: VectorQuery = field(init=False)
    doc_scores: np.ndarray = field(init=False)
    pair_scores: np.ndarray = field(init=False)
    """Per (document, kin group) pair: what each (device, command) entry scores (``vector``)."""
    enforce: bool = field(init=False)
    _choices: dict[int, CapabilityChoice] = field(default_factory=dict)
    room_from_hint: str | None = None
    sole_command: bool = False
    """The utterance parsed into this one command (所有 in the text is about it)."""
    carried_rooms: frozenset[str] = frozenset()
    """Rooms an earlier command of the utterance named; preferred when this one names none."""
    heard: dict[str, str] = field(default_factory=dict)
    """Words read by their sound (握室 -> 卧室): given, those of the utterance; after run, this command's."""

    def run(self, command: Command) -> RetrievalResult:
        """Return the result of this command, with a hint when what it says cannot be done as said."""
        result = self._run(command)
        if result.hint is None and result.candidates:
            if result.command.a == UNKNOWN_ACTION and "raw_text_reading" not in result.meta:
                result.hint = COMMAND_NOT_READ
            elif self._drops_the_action(result):
                result.hint = VALUE_NOT_TAKEN
        return result

    def _drops_the_action(self, result: RetrievalResult) -> bool:
        """Return True when the top candidate's command takes neither the value nor the direction said."""
        action = result.command.a
        direction = relative_direction(action)
        if ActionValue.parse(action) is None and direction is None:
            return False
        top = result.candidates[0]
        device_id = (
            result.groups[top.entity_id].device_ids[0] if top.entity_kind == "group" else top.entity_id
        )
        position = self.index.positions.get(device_id)
        command = self.index.devices[position].command(top.capability_id) if position is not None else None
        if command is None or command.readable or takes_argument(command):
            return False
        return direction is None or relative_direction(command.description) != direction

    def _run(self, command: Command) -> RetrievalResult:
        """Return the result of this command."""
        if command == UNKNOWN_COMMAND:
            self.meta["fallback"] = "raw_text"
            readings = [c for c in self.index.offline_parser.parse(self.ir.raw) if c.a != UNKNOWN_ACTION]
            if readings:
                return self._raw_text_readings(command, readings)
            self._prepare_vectors(VectorQuery(self.ir.raw, "unknown_command"))
            return self._raw_text(command)
        self.ir = self._with_implied_quantifier()
        self.ir = self._heard_as_home_words()
        self._prepare_vectors(vector_query_for(self.ir))
        referenced = self._referenced_positions()
        if referenced:
            return self._referenced_result(command, referenced)
        include = self._placed(self.ir.scope_include) or self._room_from_name_hint()
        scope = self.index.rooms.apply(include, self.ir.scope_exclude)
        self.meta.update(scope.meta)
        mask, category, only_apart = self._gate(scope.mask)
        pool = np.flatnonzero(mask)
        if not include and (parts := self._parts_of_the_last(pool)):
            # 晾衣架放下来, 灯也开开: the airer's own light
            return self._targets_result(command, parts, [PART_OF_THE_LAST, "type_hit"], category)
        room_hit = bool(include) and "scope_include_fallback" not in scope.meta
        if self.ir.quantifier in (Quantifier.ALL, Quantifier.EXCEPT):
            bulk = self._bulk(command, pool, category, room_hit=room_hit, include=include)
            if only_apart and bulk.hint is None:
                bulk.hint = NAME_NOT_FOUND
            return bulk
        return self._one(command, (mask, scope.mask), category, room_hit=room_hit, only_apart=only_apart)

    def _referenced_result(self, command: Command, referenced: list[int]) -> RetrievalResult:
        """Return the result of a command pointing back at the devices just mentioned."""
        placed = self._of_those_said(referenced) if self.ir.scope_include else []
        if placed:  # 卧室那个 of the two air conditioners just read: the one in 三楼卧室
            return self._targets_result(command, placed, ["last_mentioned", "room_hit"])
        reason = VALUE_REFERENCE if self.meta.get("reference") == VALUE_REFERENCE else "last_mentioned"
        return self._targets_result(command, referenced, [reason])

    def _one(
        self,
        command: Command,
        masks: tuple[np.ndarray, np.ndarray],
        category: str | None,
        *,
        room_hit: bool,
        only_apart: bool,
    ) -> RetrievalResult:
        """Return the result of a command for one device, from the gated and the scoped devices."""
        mask, scoped = masks
        pool, typed = np.flatnonzero(mask), None
        if category and self.query.is_question and self.ir.quantifier == Quantifier.ONE:
            # A question is answered by whatever can read it: devices of the type come first,
            # the others that can answer follow (客厅温度多少 asked of a Sensor: the air
            # conditioner's current temperature too).
            typed, pool = mask, np.flatnonzero(mask | (scoped & self.index.readable_mask))
        result = self._ranked(command, pool, category, room_hit=room_hit, typed=typed)
        if only_apart and result.hint is None:
            result.hint = NAME_NOT_FOUND
        if self.meta.get("reference_unresolved") and result.candidates:
            # 关掉 / 把它关掉 with nothing to point back to: the candidates are only guesses.
            result.hint = NO_TARGET
        return result

    def _parts_of_the_last(self, pool: np.ndarray) -> list[int]:
        """Return the pool's devices of the appliance just acted on, for a kind said alone (灯也开开).

        None unless the command names only a kind of device and no room, nor says every one of it
        (都): the light of the airer just lowered, the light of the hot tub whose jets just ran.
        """
        hint = compact(self.ir.name_hint or "")
        every = self.ir.quantifier != Quantifier.ONE and any(word in self.ir.raw for word in ALL_WORDS)
        if every or self.ir.quantifier == Quantifier.EXCEPT or self.ir.scope_exclude:
            return []
        if hint and not is_kind_word(hint):
            return []
        if category_for_type_hint(self.ir.type_hint) is None:
            return []
        last = set(self._last_mentioned())
        if last & set(pool.tolist()):
            return []  # 加湿器调到六十 after the humidifier was read: that one, no part of it
        appliances = {self.index.devices[p].part_of for p in last} - {""}
        parts = [
            int(p)
            for p in pool
            if self.index.devices[int(p)].part_of in appliances
            and is_capable(self._choice(int(p)), enforce=self.enforce)
        ]
        if parts:
            self.meta[PART_OF_THE_LAST] = len(parts)
        return parts

    def _rooms_leaving_nothing_out(self, include: frozenset[str], category: str | None) -> list[str]:
        """Return the rooms a set leaves out that hold none of its kind (暖气除了老人房, heated by none).

        The user thinks something there is one of them: which the set is, is a guess.
        """
        if not self.ir.scope_exclude:
            return []
        whole = self.index.rooms.apply(include, ()).mask
        kind = self.index.category_masks.get(category) if category else None
        nothing = []
        for room in sorted(self.ir.scope_exclude):
            removed = whole & ~self.index.rooms.apply(include, (room,)).mask
            if not (removed if kind is None else removed & kind).any():
                nothing.append(room)
        return nothing

    def _with_implied_quantifier(self) -> QueryIR:
        """Return the IR with ``q=one`` corrected when the command plainly targets a set.

        An LLM that leaves ``q`` out (or says ``one``) for 除了卧室以外的灯 or 把所有灯打开
        would otherwise get a top-k list instead of the whole set. Only a bare type word
        or no name qualifies; 所有/全部/都 count only when the utterance is one command
        and names a type. A set said of a floor and a kind that are one device's name, with no
        all-word, is that device.
        """
        ir = self.ir
        hint = compact(ir.name_hint or "")
        if (
            ir.quantifier == Quantifier.ALL
            and not ir.count
            and not says_all(ir.raw)
            and self._names_a_floor(ir.scope_include)
            and self._floor_and_name(ir.scope_include, hint)
        ):
            # 一楼的 after 暖气调到22度 (every heater): the one called 一楼暖气, when no all-word is said
            self.meta["quantifier_from_text"] = str(Quantifier.ONE)
            return replace(ir, quantifier=Quantifier.ONE)
        if ir.quantifier != Quantifier.ONE or ir.count or ir.references:
            return ir
        if hint and not is_type_word(hint):
            return ir
        if ir.scope_exclude:
            quantifier = Quantifier.EXCEPT
        elif (
            hint
            and self._names_a_floor(ir.scope_include)
            and not self._floor_and_name(ir.scope_include, hint)
        ):
            quantifier = Quantifier.ALL  # 一楼的灯关了: a floor's lights, not one of them
        elif self.sole_command and (hint or category_for_type_hint(ir.type_hint)) and says_all(ir.raw):
            # A type is needed: a bare 都关掉 is a follow-up about the last devices, not the home.
            quantifier = Quantifier.ALL
        else:
            return ir
        self.meta["quantifier_from_text"] = str(quantifier)
        return replace(ir, quantifier=quantifier)

    def _heard_as_home_words(self) -> QueryIR:
        """Return the IR with misheard room and device words read as the home words they sound like.

        A room word the home lacks (握室) becomes the room it sounds like (卧室); a name no
        device carries, even in part (抬灯), is respelled by sound (台灯). Words read this
        way, here or in the utterance before offline parsing, mark the candidates
        ``pinyin_hit``.
        """
        ir, heard = self.ir, dict(self.heard)
        include = {self._room_heard(word, heard) for word in ir.scope_include}
        exclude = {self._room_heard(word, heard) for word in ir.scope_exclude}
        name = ir.name_hint
        if name and not self._name_is_known(compact(name)):
            respelled, replaced = self.index.slot_sounds.respell_whole(compact(name))
            if replaced:
                name, heard = respelled, heard | replaced
        slots = [slot.lower() for slot in (name, *include, *exclude) if slot and len(slot) >= MIN_HEARD_SLOT]
        # 倒台灯 heard as 岛台灯, read as the room 岛台 and 灯: a slot inside the word heard counts too
        self.heard = {
            span: word
            for span, word in heard.items()
            if any(word.lower() in slot or slot in word.lower() for slot in slots)
        }
        if not self.heard:
            return ir
        self.meta["heard_as"] = self.heard
        return replace(ir, name_hint=name, scope_include=frozenset(include), scope_exclude=frozenset(exclude))

    def _room_heard(self, word: str, heard: dict[str, str]) -> str:
        """Return a room word as said, or the known room word it sounds like."""
        if self.index.rooms.knows(word):
            return word
        room = self.index.room_sounds.word_like(word)
        if room is None:
            return word
        heard[word] = room
        return room

    def _name_is_known(self, hint: str) -> bool:
        """Return True when the hint is a type word or some device's name matches it at least in part."""
        return hint in TYPE_WORDS or self.index.keywords.knows_part(hint)

    def _prepare_vectors(self, query: VectorQuery) -> None:
        """Embed the query once for every device of this command."""
        self.query = query
        self.enforce = query.fallback_reason is None
        self.meta["vector_query"] = query.text
        if query.fallback_reason:
            self.meta["vector_query_fallback"] = query.fallback_reason
        self.doc_scores, self.pair_scores = self.index.vectors.pair_scores(query.text)

    def _choice(self, position: int) -> CapabilityChoice:
        """Return the capability choice of a device (computed once per document signature)."""
        vectors = self.index.vectors
        signature = int(vectors.device_signature[position])
        if signature not in self._choices:
            self._choices[signature] = choose_capability(
                vectors,
                vectors.signature_device[signature],
                self.pair_scores,
                question=self.query.is_question,
                value=self.query.value,
            )
        return self._choices[signature]

    def _capable(
        self, positions: np.ndarray, *, named: frozenset[int] = frozenset(), target_set: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Return the capable subset of positions and their command similarities.

        Work is per document signature, not per device; devices indexed by a name/room
        fallback document (no command spec) cannot be checked and are kept, scored by
        that document. A device the user named, or every device of a target set when
        none of them matches the action, is never dropped for the action's wording (灭掉,
        整暗一点): it stays with its most similar command and that command's lower score.
        Only devices that other targets outdo on the action are left out.
        """
        vectors = self.index.vectors
        signatures, inverse = np.unique(vectors.device_signature[positions], return_inverse=True)
        fallback_docs = vectors.signature_fallback_doc[signatures]
        without_specs = fallback_docs >= 0
        capable = without_specs.copy()
        has_command = np.zeros(len(signatures), dtype=bool)
        similarity = np.zeros(len(signatures), dtype=np.float32)
        if self.doc_scores.size:
            similarity[without_specs] = self.doc_scores[fallback_docs[without_specs]]
        for k in np.flatnonzero(~without_specs):
            choice = self._choice(vectors.signature_device[int(signatures[k])])
            capable[k] = is_capable(choice, enforce=self.enforce)
            has_command[k] = choice.command is not None
            similarity[k] = choice.similarity
        keep = capable[inverse]
        specified = has_command[inverse]
        unfamiliar = specified & ~keep
        if not (target_set and not keep[specified].any()):
            unfamiliar &= np.isin(positions, list(named))
        if unfamiliar.any():
            self.meta["kept_for_unfamiliar_action"] = int(np.count_nonzero(unfamiliar))
            kept = self.meta.setdefault("kept_unfamiliar", [])
            for device_id in (self.index.device_ids[int(p)] for p in positions[unfamiliar]):
                if device_id not in kept:
                    kept.append(device_id)
            keep |= unfamiliar
        if len(positions) and not keep.any():
            self.meta["no_capable_device"] = True
        return positions[keep], similarity[inverse][keep]

    def _named_by_deed_mask(self) -> np.ndarray:
        """Return the devices named by what they do (scenes), which a set named by a kind never takes."""
        size = len(self.index.devices)
        masks = [self.index.category_masks.get(category) for category in NAMED_BY_DEED]
        return np.logical_or.reduce([m for m in masks if m is not None] or [np.zeros(size, dtype=bool)])

    def _gate(self, mask: np.ndarray) -> tuple[np.ndarray, str | None, bool]:
        """Apply category gating; skip it for Unknown/None/invalid hints or an empty gate.

        The flag says that every device the gate keeps for one device's type word is a thing the
        word does not mean (the balcony's only cover, its clothes airer, for 阳台的窗帘).
        """
        if (read := self._reading_the_word(mask)) is not None:
            self.meta["gating"] = "read"  # 有没有窗户开着: the window contacts, not every Blind
            return read, None, False
        category = category_for_type_hint(self.ir.type_hint)
        self.meta["gating"] = category
        if category is None:
            return mask, None, False
        gated = mask & self.index.category_masks.get(category, np.zeros(len(mask), dtype=bool))
        # A device called exactly what was said passes whatever its category (排气扇 on a switch).
        # A set named by a type word also takes the devices whose name ends with it: a Chinese
        # compound names its kind last (阳台灯 is one of 全屋的灯, though a relay drives it), but a
        # scene is named by what it does (全屋关灯 is no light).
        hints = self._name_hints(np.flatnonzero(mask))
        # 神台灯 read as the room 神台 and 灯: the room and the name said are a device's whole name.
        passing = self._called_exactly(
            (*hints, *(compact(room) + h for room in self.ir.scope_include for h in hints))
        )
        hint = compact(self.ir.name_hint or "")
        # ... and so does a set named by a name of things (全部灭蚊灯: 阳台灭蚊灯, on a switch)
        named = hint not in ("", ANY_NAME) and TYPE_WORDS.get(hint, category) == category
        if self.ir.quantifier in (Quantifier.ALL, Quantifier.EXCEPT) and named:
            deeds = self._named_by_deed_mask()
            passing |= {position for position in self.index.keywords.ending_in(hint) if not deeds[position]}
        for position in passing:
            gated[position] |= mask[position]
        # 阳台的窗帘 where the balcony's only cover is the clothes airer: none is what was said. A set
        # leaves the things apart out (所有风扇 in a home whose only fans are apart can only mean
        # those); one device said by its kind ranks among them all.
        only_apart = False
        if is_type_word(hint) and self.ir.quantifier in (Quantifier.ALL, Quantifier.EXCEPT):
            apart = self._apart(gated, hint, category)
            if (gated & ~apart).any():
                gated &= ~apart
            else:
                only_apart = bool(gated.any()) and not says_all(self.ir.raw)
        elif is_type_word(hint):
            only_apart = self._all_apart(gated, hint, category)
        if is_type_word(hint) and hint != CATEGORY_WORDS.get(category):
            gated = self._of_the_kind_said(gated, hint)  # 窗户, not 窗帘: the category's own word means all
        if not gated.any():
            self.meta["gating_fallback"] = category
            self.meta["gating"] = None
            return mask, None, False
        return gated, category, only_apart

    def _reading_the_word(self, mask: np.ndarray) -> np.ndarray | None:
        """Return the devices a question over a set reads by what they are (their class), else None.

        有没有窗户开着: the window contacts and the covers of class 窗户 answer it, not their batteries
        (电量) nor every cover; 窗帘都拉上了吗: the curtains; 门都关好了没: the door contacts. None for
        one device, or a word no device's class holds.
        """
        word = compact(self.ir.name_hint or "")
        if not self.query.is_question or self.ir.quantifier == Quantifier.ONE or word in ("", ANY_NAME):
            return None
        read = mask & np.array([bool(kind) and word in kind for kind in self.index.kinds], dtype=bool)
        return read if read.any() else None

    def _all_apart(self, gated: np.ndarray, word: str, category: str) -> bool:
        """Return True when the gate holds devices and the category's word means none of them."""
        names, devices = self.index.keywords.names, self.index.devices
        positions = np.flatnonzero(gated)
        return len(positions) > 0 and all(
            is_apart(word, category, names[p], devices[p].kind) for p in positions
        )

    def _apart(self, gated: np.ndarray, word: str, category: str) -> np.ndarray:
        """Return the devices of the gate the category's word does not mean (风扇: no range hood)."""
        apart = np.zeros(len(gated), dtype=bool)
        names, devices = self.index.keywords.names, self.index.devices
        for position in np.flatnonzero(gated):
            apart[position] = is_apart(word, category, names[position], devices[position].kind)
        return apart

    def _of_the_kind_said(self, gated: np.ndarray, word: str) -> np.ndarray:
        """Return the gate narrowed to the kind the word names, when it names the kind of some devices.

        A device's kind is what its class is called (a cover of class window: 窗户; an outlet: 插座):
        窗户 means the windows, not the curtains; 插座 the outlets, not a fountain on a relay. A
        device called by the word is still meant (阳光房窗户 of no class). Unchanged when no
        device is of that kind, unless the word names a thing the category's words set apart: 窗户
        in a home whose covers are all curtains means none of them.
        """
        kinds, names = self.index.kinds, self.index.keywords.names
        positions = np.flatnonzero(gated)
        category = category_for_type_hint(self.ir.type_hint)
        apart = category is not None and names_a_thing_apart(word, category)
        if not apart and not any(kinds[p] == word for p in positions):
            return gated
        kept = gated.copy()
        for position in positions:
            kept[position] = kinds[position] == word or any(word in n for n in names[position])
        return kept

    def _names_a_floor(self, include: frozenset[str]) -> bool:
        """Return True when a word scoping the command is a floor of several rooms (一楼, 楼上)."""
        floors, kinds = self.index.rooms.floor_index, self.index.rooms.kinds
        return any(len(floors.get(word, ())) > 1 and word not in kinds for word in map(compact, include))

    def _floor_and_name(self, include: frozenset[str], hint: str) -> bool:
        """Return True when a floor word and the name said are one device's whole name (一楼暖气)."""
        return bool(self._called_exactly(tuple(compact(word) + hint for word in include)))

    def _referenced_positions(self) -> list[int]:
        """Return the last-mentioned devices when the command points back to them."""
        explicit = REFERENCE_LAST_MENTIONED in self.ir.references
        implicit = (
            self.ir.name_hint is None
            and category_for_type_hint(self.ir.type_hint) is None
            and not self.ir.scope_include
            and not self.ir.scope_exclude
            and self.ir.quantifier in (Quantifier.ONE, Quantifier.ALL)
        )
        if not explicit and not implicit:
            return self._mentioned_but_left_out()
        positions = self._last_mentioned()
        reference = "explicit" if explicit else "implicit"
        if implicit and self.ir.quantifier == Quantifier.ALL and len(positions) == 1:
            # 主卫灯打开, 浴霸也开, 好了都关掉: all is what the last few turns mentioned, one each
            positions, reference = self._recently_mentioned(), RECENT_REFERENCE
        if not positions and (listing := self._those_listing_the_value()):
            positions, reference = listing, VALUE_REFERENCE
        if positions:
            self.meta["reference"] = reference
            last = self.state.last_command()
            if implicit and len(positions) > 1 and last is not None and _asked_of_a_room(last):
                self.meta[ANSWERED_REFERENCE] = True  # 关掉 after 浩浩房间的灯关了冇: the lights answered
        else:
            self.meta["reference_unresolved"] = True
        return positions

    def _those_listing_the_value(self) -> list[int]:
        """Return the devices a value said in words is listed by, when nothing was mentioned before.

        switch 去 ViuTV: the television with ViuTV among its sources (of two, the one on is meant).
        """
        said = ActionValue.parse(self.ir.action or "")
        if said is None or not said.words:
            return []
        listing = self.index.listed_by.get(compact(said.words), ())
        return list(listing) if len(listing) <= MAX_LISTING else []

    def _of_those_said(self, positions: list[int]) -> list[int]:
        """Return the devices pointed at whose room or name holds a place said (卧室那个), else none.

        楼下空调开着没 answered with two air conditioners; 卧室那个关了吧: the one in 三楼卧室; a room's
        other name (东门 for 东玄关) says it too. A place said with its side (北边那个) is the place
        alone when nothing holds it as said.
        """
        devices = self.index.devices

        def holds(position: int, word: str) -> bool:
            device = devices[position]
            return word in compact(device.room + device.name) or self.index.room_inside(device.room, word)

        for read in (compact, lambda word: without_side(compact(word))):  # 北边那个: the one of 北阳台
            words = [read(word) for word in self.ir.scope_include]
            placed = [p for p in positions if any(holds(p, w) for w in words)]
            if placed:
                return placed
        return []

    def _last_mentioned(self) -> list[int]:
        """Return the positions of the devices the conversation last mentioned."""
        return self._positions_of(self.state.last_mentioned())

    def _recently_mentioned(self) -> list[int]:
        """Return the positions of the devices the conversation's last few turns mentioned."""
        return self._positions_of(self.state.recently_mentioned())

    def _positions_of(self, device_ids: Sequence[str]) -> list[int]:
        """Return the index positions of the devices still in the home."""
        return [self.index.positions[i] for i in device_ids if i in self.index.positions]

    def _mentioned_but_left_out(self) -> list[int]:
        """Return the last-mentioned devices but those the set leaves out by name, when it leaves one out.

        留筒灯，其他关掉 after 客厅有几盏灯开着: the lights just read, but the downlight; an
        exception naming none of them is about the whole home.
        """
        ir = self.ir
        if not (
            ir.quantifier == Quantifier.EXCEPT
            and ir.exclude_names
            and ir.name_hint is None
            and category_for_type_hint(ir.type_hint) is None
            and not ir.scope_include
            and not ir.scope_exclude
        ):
            return []
        mentioned = set(self._last_mentioned())
        called = {p for name in ir.exclude_names for p in self.index.keywords.ending_in(compact(name))}
        if not mentioned & called:
            return []
        self.meta["reference"] = "implicit"
        self.meta["excluded_by_name"] = len(mentioned & called)
        return sorted(mentioned - called)

    def _placed(self, include: frozenset[str]) -> frozenset[str]:
        """Return the rooms said, none when only the speaker's own room is said with a name.

        我房间的小夜灯: the name says which device, wherever the speaker's room is; 我房间的音箱
        (a kind, not a name) keeps a room the home cannot place, so the engine asks.
        """
        hint = compact(self.ir.name_hint or "")
        named = hint not in ("", ANY_NAME) and not is_type_word(hint)
        return frozenset() if include and include <= SPEAKERS_ROOM_WORDS and named else include

    def _room_from_name_hint(self) -> frozenset[str]:
        """Return the room said inside the name (客厅主灯 with no scope) as an include.

        The prompt asks the LLM to move room words out of ``n``; when it doesn't, the
        room still scopes the command (hard, with the usual fallback) and the name is
        matched with and without it. A name said whole that is a device's own name outside that
        room says no room: 主臥浴室's 浴室暖風機 is not in 浴室, and two rooms' 客厅空调 are both meant.
        """
        hint = compact(self.ir.name_hint or "")
        room = self.index.rooms.room_in(hint) if hint else None
        if room is None or room == hint:
            return frozenset()
        called = sorted(self._called_exactly((hint,)))
        if called and not self.index.rooms.apply({room}, ()).mask[called].all():
            return frozenset()
        self.room_from_hint = room
        self.meta["room_from_name_hint"] = room
        return frozenset({room})

    def _name_hints(self, pool: np.ndarray, category: str | None = None) -> tuple[str, ...]:
        """Return the compacted name hint (and it without a room word said in it).

        Empty when the hint only repeats the gated type (灯 for Light), unless a device in
        the pool is called exactly that: a blind named 卷帘 is meant by 卷帘, not every Blind.
        """
        hint = compact(self.ir.name_hint or "")
        hints = (hint, hint.replace(self.room_from_hint, "", 1)) if self.room_from_hint else (hint,)
        if (
            category
            and any(TYPE_WORDS.get(h) == category and is_type_word(h) for h in hints)
            and not self._names_a_device(hints, pool)
        ):
            return ()
        return tuple(h for h in hints if h)

    def _called_with_floor(self, pool: np.ndarray) -> dict[int, NameMatch]:
        """Return the pool devices whose whole name is a floor word said and the name said, matched.

        楼上暖气 read as the floor 楼上 and 暖气: the device called 楼上暖气 is named, not only typed.
        (A room's own, 卧室灯 for 卧室的灯, is the agent's to settle among close matches.)
        """
        hint = compact(self.ir.name_hint or "")
        floors = [word for word in sorted(self.ir.scope_include) if self._names_a_floor(frozenset({word}))]
        matches: dict[int, NameMatch] = {}
        for name in (compact(floor) + hint for floor in floors if hint):
            for position in self._called_exactly((name,)) & set(pool.tolist()):
                score, via_alias = self.index.keywords.score(position, name)
                matches[position] = NameMatch(score, "alias" if via_alias else "name")
        return matches

    def _names_a_device(self, hints: tuple[str, ...], pool: np.ndarray) -> bool:
        """Return True when a pool device's name or alias is exactly one of the hints."""
        return not self._called_exactly(hints).isdisjoint(pool.tolist())

    def _called_exactly(self, hints: tuple[str, ...]) -> set[int]:
        """Return the devices whose name or alias is exactly one of the hints."""
        return {position for hint in hints for position in self.index.keywords.by_name.get(hint, ())}

    def _name_scores(self, pool: np.ndarray, hints: tuple[str, ...]) -> dict[int, NameMatch]:
        """Return the best keyword match of pool devices for the hints.

        Names and aliases sharing characters with a hint are scored fuzzily; a bare type
        word (灯, 空调) also matches every device of its category (``type``), which is
        how an ungated command still finds 百叶窗 for 窗帘.
        """
        if not hints:
            return {}
        in_pool = np.zeros(len(self.index.devices), dtype=bool)
        in_pool[pool] = True
        scores: dict[int, NameMatch] = {}
        for hint in hints:
            for position in self.index.keywords.candidates(hint):
                if in_pool[position]:
                    score, via_alias = self.index.keywords.score(position, hint)
                    if score >= MIN_NAME_SCORE and score > scores.get(position, NO_MATCH).score:
                        scores[position] = NameMatch(score, "alias" if via_alias else "name")
        category = GENERIC_TYPE_WORDS.get(hints[-1])
        if category in self.index.category_masks:
            # 窗户 is no curtain: a word for a thing set apart types only the devices of that kind
            apart = names_a_thing_apart(hints[-1], category)
            for position in np.flatnonzero(in_pool & self.index.category_masks[category]):
                if apart and self.index.kinds[int(position)] != hints[-1]:
                    continue
                if scores.get(int(position), NO_MATCH).score < TYPE_NAME_SCORE:
                    scores[int(position)] = NameMatch(TYPE_NAME_SCORE, "type")
        return scores

    def _ranked(
        self,
        command: Command,
        pool: np.ndarray,
        category: str | None,
        *,
        room_hit: bool,
        typed: np.ndarray | None = None,
    ) -> RetrievalResult:
        """Rank single-target commands (one / any) and cut to top-k.

        ``typed`` (all devices) marks those of the category when it ranks rather than gates.
        """
        hints = self._name_hints(pool, category)
        names = self._name_scores(pool, hints) | self._called_with_floor(pool)
        base = (TYPE_BONUS if category and typed is None else 0.0) + (ROOM_BONUS if room_hit else 0.0)
        if category is None and hints and names:
            pool = np.array(sorted(names), dtype=np.int64)
        result = self._rank_pool(command, pool, names, base, category, room_hit=room_hit, typed=typed)
        if category is None and hints and not names and result.candidates:
            # Nothing is called that: the candidates come from the action alone.
            self.meta["keyword_miss"] = True
            result.hint = NAME_NOT_FOUND
        return result

    def _rank_pool(  # noqa: PLR0913
        self,
        command: Command,
        pool: np.ndarray,
        names: dict[int, NameMatch],
        base: float,
        category: str | None,
        *,
        room_hit: bool,
        typed: np.ndarray | None = None,
    ) -> RetrievalResult:
        """Score a pool by weighted keyword + vector evidence and keep the best."""
        named = frozenset(
            p for p, match in names.items() if match.via != "type" and match.score >= CONTAINED_BASE_SCORE
        )
        pool, similarity = self._capable(pool, named=named, target_set=category is not None)
        if typed is not None:
            # Devices of another type answer only when what they read is close to the question.
            keep = typed[pool] | (similarity >= CAPABILITY_MIN_SIMILARITY)
            pool, similarity = pool[keep], similarity[keep]
        keyword_weight, vector_weight = GATED_WEIGHTS if category else UNGATED_WEIGHTS
        self.meta["weights"] = {"keyword": keyword_weight, "vector": vector_weight}
        keyword = np.array([base + names.get(int(p), NO_MATCH).score for p in pool], dtype=np.float32)
        # A device called exactly what was said outranks any difference in how its commands are
        # worded: the name is who, the action's similarity only how (卷帘's 放下 for 关闭).
        exact = np.array([self._is_exact_name(names.get(int(p), NO_MATCH)) for p in pool], dtype=bool)
        keyword += (vector_weight / keyword_weight) * exact
        # A matching device in the room said earlier comes before any other (the others stay),
        # unless a name, not a kind, was said, none there is called by it and a device elsewhere is
        # called exactly that (玄关灯和阳台灯: the 阳台灯, not a light of the 玄关).
        carried = self._in_carried_rooms(pool)
        called = np.array([int(p) in names and names[int(p)].via != "type" for p in pool], dtype=bool)
        if exact.any() and not (carried & called).any() and not is_kind_word(compact(command.n)):
            carried[:] = False
        keyword += _outranking_span(keyword_weight, vector_weight) * carried
        # Between otherwise equal devices, the one more of whose name the utterance says (its
        # room words aside: those are the scope's evidence).
        said = self.index.keywords.said_share(self.index.rooms.without_rooms(compact(self.ir.raw)))
        keyword += SAID_NAME_WEIGHT * np.array([said.get(int(p), 0.0) for p in pool], dtype=np.float32)
        if typed is not None:
            # Devices of the type asked that were named, called by the kind's word when their state
            # is asked (加湿器开着吗; not 扫地机电量多少, which a battery sensor answers), or read
            # something close to the question come first.
            kind_asked = is_type_word(command.n) and command.a == STATE_QUESTION
            was_named = np.isin(pool, list(named)) | kind_asked
            answering = typed[pool] & ((similarity >= CAPABILITY_MIN_SIMILARITY) | was_named)
            keyword += _outranking_span(keyword_weight, vector_weight) * answering
        total = keyword_weight * keyword + vector_weight * similarity
        limit = self._limit()
        order = np.lexsort((pool, -total))[:limit]
        candidates = []
        for i in order:
            position = int(pool[i])
            reasons = self._reasons(
                position, names, category if typed is None or typed[position] else None, room_hit=room_hit
            )
            if carried[i]:
                reasons.append("room_carried")
            choice = self._choice(position)
            candidates.append(
                Candidate(
                    entity_id=self.index.device_ids[position],
                    entity_kind="device",
                    capability_id=choice.command_id,
                    keyword_score=round(float(keyword[i]), 4),
                    vector_score=round(float(similarity[i]), 4),
                    total_score=round(float(total[i]), 4),
                    reasons=reasons,
                )
            )
        hint = None
        # 两个排气扇: the second and a third alike leave the two unsettled; the first two alike do not
        last = self.ir.count - 1 if self.ir.quantifier == Quantifier.ANY and self.ir.count else 0
        if not candidates:
            hint = NO_CANDIDATES
        elif (
            len(candidates) > last + 1
            and candidates[last].total_score - candidates[last + 1].total_score < CLOSE_MATCH_MARGIN
        ):
            hint = MULTIPLE_CLOSE_MATCHES
        return RetrievalResult(command=command, candidates=candidates, hint=hint, meta=self.meta)

    def _carried_set(self, pool: np.ndarray) -> np.ndarray | None:
        """Return the targets of a set command inside the room an earlier command named, if any.

        书房空调打开，灯调到50%: the lights of 书房, when it has some; else None.
        """
        carried = self._carried_mask()
        if carried is None or not carried[pool].any():
            return None
        self.meta["rooms_carried"] = sorted(self.carried_rooms)
        return pool[carried[pool]]

    def _carried_mask(self) -> np.ndarray | None:
        """Return the devices in the rooms an earlier command named (None when there are none)."""
        if not self.carried_rooms:
            return None
        scope = self.index.rooms.apply(self.carried_rooms, ())
        return None if "scope_include_fallback" in scope.meta else scope.mask

    @staticmethod
    def _is_exact_name(match: NameMatch) -> bool:
        """Return True for a device called exactly the hint (its name or an alias, not its type)."""
        return match.via != "type" and match.score >= EXACT_NAME_SCORE

    def _in_carried_rooms(self, pool: np.ndarray) -> np.ndarray:
        """Return which pool devices are in a room an earlier command of the utterance named.

        打开客厅的灯然后把空调调到26度: the air conditioner of 客厅 is preferred. Only a
        command that names no room of its own inherits one; the other devices stay
        candidates, ranked lower.
        """
        none = np.zeros(len(pool), dtype=bool)
        if self.ir.scope_include or self.ir.scope_exclude or self.room_from_hint:
            return none
        carried = self._carried_mask()
        if carried is None:
            return none
        self.meta["rooms_carried"] = sorted(self.carried_rooms)
        return carried[pool]

    def _limit(self) -> int:
        """Return how many single-target candidates to keep."""
        if self.ir.quantifier == Quantifier.ANY and self.ir.count:
            return min(self.ir.count, MAX_TOP_K)
        return self.top_k

    def _reasons(
        self, position: int, names: dict[int, NameMatch], category: str | None, *, room_hit: bool
    ) -> list[str]:
        """Return why a device was ranked."""
        reasons = []
        match = names.get(position)
        if match is not None and match.via != "type":
            if match.score >= EXACT_NAME_SCORE:
                reasons.append(f"{match.via}_hit")
            else:
                reasons.append("name_partial")
        if room_hit:
            reasons.append("room_hit")
        if category or (match is not None and match.via == "type"):
            reasons.append("type_hit")
        if self.doc_scores.size and self._choice(position).similarity > 0:
            reasons.append("vector_hit")
        if self._called_as_heard(position):
            reasons.append("pinyin_hit")
        return reasons

    def _called_as_heard(self, position: int) -> bool:
        """Return True when a word heard as a home word (倒台 as 岛台) is in its names or says its kind.

        阴香 heard as 音响 finds the study's speaker by its kind; air fryer heard as air dryer finds
        no fairy lights.
        """
        heard = [compact(word) for word in self.heard.values()]
        category = self.index.devices[position].category
        return any(word in name for word in heard for name in self.index.keywords.names[position]) or any(
            word in TYPE_WORDS and in_category(category, TYPE_WORDS[word]) for word in heard
        )

    def _bulk(
        self,
        command: Command,
        pool: np.ndarray,
        category: str | None,
        *,
        room_hit: bool,
        include: frozenset[str],
    ) -> RetrievalResult:
        """Return groups covering every target of an all/except command.

        A set said with no room keeps to the room an earlier command named when it has some; one
        leaving out a room that has none of it is a guess (``exclusion_unmatched``).
        """
        carry = not include and not self.ir.scope_exclude
        if leaving_nothing := self._rooms_leaving_nothing_out(include, category):
            self.meta["exclusion_unmatched"] = leaving_nothing
        hints = self._name_hints(pool, category)
        if hints:
            scores = self._name_scores(pool, hints)
            named = [
                p
                for p, match in scores.items()
                if match.via == "type" or (match.score >= BULK_NAME_MIN and self._holds_a_hint(p, hints))
            ]
            by_name = [p for p in named if scores[p].via != "type"]
            if self.ir.count and len(by_name) == self.ir.count:
                # 两个纱帘: the count says the word names those two devices, not every blind.
                named = by_name
            if named:
                pool = np.array(sorted(named), dtype=np.int64)
            else:
                self.meta["bulk_name_unmatched"] = True
        carried = self._carried_set(pool) if carry else None
        if carried is not None:
            pool, room_hit = carried, True
        if self.ir.exclude_names:
            pool = self._without_named(pool)
        reasons = [
            *(["room_hit"] if room_hit else []),
            *(["type_hit"] if category else []),
            f"quantifier_{self.ir.quantifier}",
            *(["pinyin_hit"] if self.heard else []),
        ]
        return self._targets_result(command, [int(p) for p in pool], reasons, category=category)

    def _holds_a_hint(self, position: int, hints: tuple[str, ...]) -> bool:
        """Return True when a name or alias of the device holds a hint whole (所有排风扇: not a 风扇)."""
        rooms = self.index.rooms
        return any(
            rooms.holds_whole(name, compact(hint))
            for hint in hints
            for name in self.index.keywords.names[position]
        )

    def _without_named(self, pool: np.ndarray) -> np.ndarray:
        """Return the pool without the devices called what the set leaves out (除了落地灯).

        A device is called so when its name or an alias is the word or ends with it whole (客厅落地灯:
        a Chinese noun names its kind last; 阳台灯 is no 台灯), or the word and a word of the set's kind
        (除了神台的灯，其他灯: 神台灯; 窗帘全拉上, Ethan 的不用: Ethan 卷帘), else those in the one room
        named after it (阿嬷的不要关: 阿嬷房). A word that calls none of them is recorded
        (``exclusion_unmatched``): the set would take a device the user meant to leave alone.
        """
        left = set(pool.tolist())
        unmatched = []
        kinds = self._words_of_the_kind_said()
        for name in self.ir.exclude_names:
            called = self._ending_whole(compact(name), left)
            for kind in kinds if not called else ():
                called |= self._ending_whole(compact(name) + kind, left)
            if not called and (room := self.index.rooms.room_starting(name)) is not None:
                called = {position for position in left if self.index.rooms.room_ids[position] == room}
            if not called:
                unmatched.append(name)
            left -= called
        if unmatched:
            self.meta["exclusion_unmatched"] = unmatched
        self.meta["excluded_by_name"] = len(pool) - len(left)
        return np.array(sorted(left), dtype=np.int64)

    def _ending_whole(self, word: str, among: set[int]) -> set[int]:
        """Return the devices with a name or alias ending with ``word`` whole (阳台灯: no 台灯)."""
        rooms, names = self.index.rooms, self.index.keywords.names
        return {
            position
            for position in self.index.keywords.ending_in(word) & among
            if any(name.endswith(word) and rooms.holds_whole(name, word) for name in names[position])
        }

    def _words_of_the_kind_said(self) -> list[str]:
        """Return the kind word the set was said by and the other words of its category (窗帘: 卷帘...)."""
        said = compact(self.ir.name_hint or "")
        if not is_type_word(said):
            return []
        category = TYPE_WORDS.get(said)
        return [said, *(word for word, kind in TYPE_WORDS.items() if kind == category and word != said)]

    def _could_be_meant(self, position: int) -> bool:
        """Return True unless a device is a sensor of another kind than was said (a fan's PM2.5 for 风扇).

        A sensor of the kind said (窗户 of a window contact) may be what the user meant, and cannot
        do it; a sensor is found with the device it belongs to (and that device's names) otherwise.
        """
        said = compact(self.ir.name_hint or "")
        return any(not command.readable for command in self.index.devices[position].commands) or (
            bool(said) and said in self.index.kinds[position]
        )

    def _targets_result(
        self, command: Command, positions: list[int], reasons: list[str], category: str | None = None
    ) -> RetrievalResult:
        """Return one device candidate, or groups by the command chosen for each, for a known target set."""
        capable, similarity = self._capable(np.array(positions, dtype=np.int64), target_set=True)
        left_out = set(positions) - set(capable.tolist())
        dropped = sum(self._could_be_meant(p) for p in left_out)
        if dropped:
            self.meta["unsupported_targets"] = dropped
        keyword_weight, vector_weight = GATED_WEIGHTS if category else UNGATED_WEIGHTS
        base = (TYPE_BONUS if category else 0.0) + (ROOM_BONUS if "room_hit" in reasons else 0.0)
        if len(capable) == 1 and self.ir.quantifier == Quantifier.ONE:
            choice = self._choice(int(capable[0]))
            keyword = 1.0
            return RetrievalResult(
                command=command,
                candidates=[
                    Candidate(
                        entity_id=self.index.device_ids[int(capable[0])],
                        entity_kind="device",
                        capability_id=choice.command_id,
                        keyword_score=keyword,
                        vector_score=round(float(similarity[0]), 4),
                        total_score=round(keyword_weight * keyword + vector_weight * float(similarity[0]), 4),
                        reasons=reasons,
                    )
                ],
                meta=self.meta,
            )
        groups = group_targets([int(p) for p in capable], self._choice)
        kept, cut = bound_groups(groups, self.top_k)
        self.meta["targets"] = len(capable)
        candidates, result_groups = [], {}
        for group in kept:
            group_id = next(self.group_ids)
            device_ids = [self.index.device_ids[p] for p in group.positions]
            capability = group.choice.command_id
            result_groups[group_id] = Group(
                group_id, group_name(self.index.devices, group.positions), device_ids, capability
            )
            candidates.append(
                Candidate(
                    entity_id=group_id,
                    entity_kind="group",
                    capability_id=capability,
                    keyword_score=base,
                    vector_score=round(group.choice.similarity, 4),
                    total_score=round(keyword_weight * base + vector_weight * group.choice.similarity, 4),
                    reasons=list(reasons),
                )
            )
        hint = TOO_MANY_TARGETS if cut else (None if candidates else NO_CANDIDATES)
        if cut:
            self.meta["listed_targets"] = sum(len(group.device_ids) for group in result_groups.values())
        return RetrievalResult(
            command=command, candidates=candidates, hint=hint, groups=result_groups, meta=self.meta
        )

    def _raw_text_readings(self, command: Command, readings: list[Command]) -> RetrievalResult:
        """Retrieve by the deterministic reading of the raw utterance, merged into one result.

        The command stays UNKNOWN (the parse failed); its candidates are those of the
        offline parser's commands, so a broken LLM answer still finds the devices.
        """
        readings = readings[:MAX_COMMANDS]
        self.meta["raw_text_reading"] = [reading.to_dict() for reading in readings]
        merged = RetrievalResult(command=command, meta=self.meta)
        for reading in readings:
            search = CommandSearch(
                index=self.index,
                ir=command_to_ir(reading, self.ir.raw),
                top_k=self.top_k,
                state=self.state,
                group_ids=self.group_ids,
            )
            part = search.run(reading)
            merged.candidates.extend(part.candidates)
            merged.groups.update(part.groups)
            merged.hint = merged.hint or part.hint
        # Several readings together still answer with at most top_k candidates (CONTRACT §2).
        merged.candidates = sorted(merged.candidates, key=lambda c: -c.total_score)[: self.top_k]
        kept = {c.entity_id for c in merged.candidates if c.entity_kind == "group"}
        merged.groups = {group_id: group for group_id, group in merged.groups.items() if group_id in kept}
        return merged

    def _raw_text(self, command: Command) -> RetrievalResult:
        """Retrieve by what the raw utterance says: a room, device names (whole or in part), its vector.

        主卧给我凉快一下 keeps to 主卧; 旺财饿了 finds 旺财喂食器 by the part of its name said.
        """
        text = compact(self.ir.raw)
        keywords = self.index.keywords
        room = self.index.rooms.room_in(text)
        scope = self.index.rooms.apply({room} if room else set(), ())
        in_scope = (
            scope.mask if "scope_include_fallback" not in scope.meta else np.ones(len(scope.mask), bool)
        )
        candidates = [p for p in keywords.candidates(text) if in_scope[p]]
        # The room said is the scope, not a name said in part (主卧 of 主卧风扇).
        rest = text.replace(room, " ") if room else text
        said = keywords.contained_in(text, candidates) or keywords.sharing(rest, set(candidates))
        names = {position: NameMatch(score, "name") for position, score in said.items()}
        pool = np.array(sorted(names), dtype=np.int64) if names else np.flatnonzero(in_scope)
        room_hit = room is not None and "scope_include_fallback" not in scope.meta
        base = ROOM_BONUS if room_hit else 0.0
        return self._rank_pool(command, pool, names, base, None, room_hit=room_hit)
