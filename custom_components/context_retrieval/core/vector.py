"""Command-level vector index: one document per (device, command), built once (seed 001 decision 4).

Documents depend only on the command spec, so identical documents (every lamp of one
profile) are embedded once; a query costs one matrix-vector product over the unique
documents plus a gather per (device, command) entry.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

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
        return cls(
            embedder=embedder,
            doc_matrix=np.ascontiguousarray(matrix, dtype=np.float32),
            entry_doc=np.asarray(entry_doc, dtype=np.int32),
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
