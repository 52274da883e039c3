"""Command-level vector index: one document per (device, command), built once (seed 001 decision 4).

Documents depend only on the command spec, so identical documents (every lamp of one
profile) are embedded once; a query costs one matrix-vector product over the unique
documents plus a gather per (device, command) entry.

Commands of one capability and command name are kin whatever their profile describes them
as: a relay's 断电 is the ``switch-off`` that other profiles call 电源关闭, a fan's 档位 the
``fanSpeed-setFanSpeed`` others call 风速. A command is as similar to an action as its kin
in the home are on average, when that is more than its own document is.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .spec import command_id_parts

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .embedding import Embedder
    from .models import CommandSpec, Device

_LOGGER = logging.getLogger(__name__)


@dataclass(slots=True)
class CommandVectorIndex:
    """Unique document vectors and the (device, command) entries that point at them."""

    embedder: Embedder
    doc_matrix: np.ndarray
    """(documents, dimensions) unit rows."""
    entry_doc: np.ndarray
    """Document row of each entry."""
    entry_device: np.ndarray
    """Device position of each entry."""
    entry_command: list[CommandSpec | None]
    """The command of each entry; None for a device's name/room fallback document."""
    device_entries: list[range]
    """Entry positions of each device, in device order."""
    device_signature: np.ndarray
    """Devices with equal signatures have the same documents and command ids, in order."""
    signature_device: list[int]
    """One device position per signature."""
    signature_fallback_doc: np.ndarray
    """Document row of a signature made of a name/room fallback document, -1 otherwise."""
    entry_pair: np.ndarray
    """Row of each entry in the (document, kin group) pairs."""
    pair_doc: np.ndarray
    """Document row of each distinct (document, kin group) pair."""
    pair_kin: np.ndarray
    """Kin group (see ``kin_key``) of each pair, -1 for attributes and ids without one."""
    kin_sizes: np.ndarray
    """Distinct documents of each kin group."""

    @classmethod
    def build(
        cls,
        devices: Sequence[Device],
        commands: Sequence[Sequence[CommandSpec]],
        embedder: Embedder,
        command_document: Callable[[CommandSpec], str],
        fallback_document: Callable[[Device], str],
    ) -> CommandVectorIndex:
        """Embed every distinct document once and lay out the entries per device."""
        doc_rows: dict[str, int] = {}
        entry_doc: list[int] = []
        entry_device: list[int] = []
        entry_command: list[CommandSpec | None] = []
        device_entries: list[range] = []
        signatures: dict[tuple[tuple[int, str | None, bool], ...], int] = {}
        device_signature: list[int] = []
        signature_device: list[int] = []
        kin_groups: dict[str, int] = {}
        entry_kin: list[int] = []
        missing_spec = 0
        for position, (device, device_commands) in enumerate(zip(devices, commands, strict=True)):
            start = len(entry_doc)
            documents: list[tuple[str, CommandSpec | None]] = [
                (command_document(command), command) for command in device_commands
            ]
            if not documents:
                missing_spec += 1
                documents = [(fallback_document(device), None)]
            for text, command in documents:
                entry_doc.append(doc_rows.setdefault(text, len(doc_rows)))
                entry_device.append(position)
                entry_command.append(command)
                key = kin_key(command)
                entry_kin.append(-1 if key is None else kin_groups.setdefault(key, len(kin_groups)))
            device_entries.append(range(start, len(entry_doc)))
            signature = tuple(
                (
                    entry_doc[i],
                    None if (cmd := entry_command[i]) is None else cmd.id,
                    bool(cmd and cmd.readable),
                )
                for i in range(start, len(entry_doc))
            )
            if signature not in signatures:
                signatures[signature] = len(signature_device)
                signature_device.append(position)
            device_signature.append(signatures[signature])
        if missing_spec:
            _LOGGER.warning(
                "%d of %d devices have no command spec; indexing their name and room instead",
                missing_spec,
                len(devices),
            )
        matrix = embedder.embed(list(doc_rows)) if doc_rows else np.zeros((0, 1), dtype=np.float32)
        docs = np.asarray(entry_doc, dtype=np.int32)
        pairs, entry_pair = np.unique(
            np.stack([docs, np.asarray(entry_kin, dtype=np.int32)], axis=1).reshape(-1, 2),
            axis=0,
            return_inverse=True,
        )
        related = pairs[:, 1] >= 0
        return cls(
            embedder=embedder,
            doc_matrix=np.ascontiguousarray(matrix, dtype=np.float32),
            entry_doc=docs,
            entry_device=np.asarray(entry_device, dtype=np.int32),
            entry_command=entry_command,
            device_entries=device_entries,
            device_signature=np.asarray(device_signature, dtype=np.int32),
            signature_device=signature_device,
            signature_fallback_doc=np.asarray(
                [
                    entry_doc[device_entries[position].start]
                    if entry_command[device_entries[position].start] is None
                    else -1
                    for position in signature_device
                ],
                dtype=np.int32,
            ),
            entry_pair=np.asarray(entry_pair, dtype=np.int32).reshape(-1),
            pair_doc=pairs[:, 0].astype(np.int32),
            pair_kin=pairs[:, 1].astype(np.int32),
            kin_sizes=np.maximum(np.bincount(pairs[related, 1], minlength=len(kin_groups)), 1),
        )

    @property
    def document_count(self) -> int:
        """Return how many distinct documents were embedded."""
        return int(self.doc_matrix.shape[0])

    def document_scores(self, query_text: str) -> np.ndarray:
        """Return the cosine similarity of the query to every distinct document."""
        if not self.document_count or not query_text:
            return np.zeros(self.document_count, dtype=np.float32)
        query = self.embedder.embed([query_text])[0]
        return self.doc_matrix @ query

    def pair_scores(self, query_text: str) -> tuple[np.ndarray, np.ndarray]:
        """Return the query's similarity to every document, and to every (document, kin) pair.

        A pair scores its document's similarity, or the mean over its kin group's
        documents when that is higher; an entry's similarity is its pair's.
        """
        docs = self.document_scores(query_text)
        pairs = docs[self.pair_doc] if docs.size else np.zeros(len(self.pair_doc), dtype=np.float32)
        related = self.pair_kin >= 0
        if docs.size and related.any():
            kin = np.bincount(self.pair_kin[related], pairs[related], len(self.kin_sizes)) / self.kin_sizes
            pairs[related] = np.maximum(pairs[related], kin[self.pair_kin[related]])
        return docs, pairs


def kin_key(command: CommandSpec | None) -> str | None:
    """Return the capability and command of a ``{component}-{capability}-{command}`` id.

    None for attributes (what they read depends on the device: a door's state is not a
    window's) and for ids without those parts.
    """
    if command is None or command.readable:
        return None
    parts = command_id_parts(command.id)
    return f"{parts[1]}-{parts[2]}" if parts and parts[2] else None
