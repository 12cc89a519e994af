"""Protobuf's canonical JSON for the referee's hot messages, without reflection.

The stdio transport speaks ``spite.v1`` in the canonical JSON mapping
(https://protobuf.dev/programming-guides/json/): lowerCamelCase names, enums by name,
64-bit integers as strings, fields at their default left out. ``json_format.MessageToDict``
does that by walking descriptors, for every field of every message, and costs a stdio
session several hundred microseconds per decision. The functions here write the same
dictionaries for the messages sent at every decision (``DecisionRequest``, ``EventBatch``,
``ActionResult``) field by field, and leave every other message to ``json_format``.
``tests/wire/test_canonical_json.py`` checks them against ``MessageToDict`` over random games.
"""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import json_format

from spite.v1 import game_pb2 as pb
from spite.v1 import referee_pb2 as rpb

_MOVE_KINDS = {v.number: v.name for v in pb.MoveKind.DESCRIPTOR.values}
_SOURCES = {v.number: v.name for v in pb.Source.DESCRIPTOR.values}
_EVENT_KINDS = {v.number: v.name for v in pb.EventKind.DESCRIPTOR.values}
_FAULTS = {v.number: v.name for v in rpb.Fault.DESCRIPTOR.values}


def _enum(names: dict[int, str], number: int) -> str | int:
    """An enum value by name; a number this code has no name for stays a number (as protobuf writes it)."""
    return names.get(number, number)


def move_dict(m: pb.Move) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if m.kind:
        out["kind"] = _enum(_MOVE_KINDS, m.kind)
    if m.source:
        out["source"] = _enum(_SOURCES, m.source)
    if m.source_index:
        out["sourceIndex"] = m.source_index
    if m.card:
        out["card"] = m.card
    if m.target:
        out["target"] = m.target
    return out


def event_dict(e: pb.Event) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if e.kind:
        out["kind"] = _enum(_EVENT_KINDS, e.kind)
    if e.seat:
        out["seat"] = e.seat
    if e.HasField("move"):
        out["move"] = move_dict(e.move)
    if e.cards:
        out["cards"] = list(e.cards)
    if e.count:
        out["count"] = e.count
    if e.pile:
        out["pile"] = e.pile
    return out


def _pile(cards: Any) -> dict[str, Any]:
    return {"cards": list(cards)} if cards else {}


def observation_dict(o: pb.Observation) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if o.seat:
        out["seat"] = o.seat
    if o.turn:
        out["turn"] = o.turn
    if o.to_move:
        out["toMove"] = o.to_move
    if o.hand:
        out["hand"] = list(o.hand)
    if o.hand_sizes:
        out["handSizes"] = list(o.hand_sizes)
    if o.stocks:
        stocks = []
        for s in o.stocks:
            stock: dict[str, Any] = {}
            if s.count:
                stock["count"] = s.count
            if s.visible:
                stock["visible"] = list(s.visible)
            stocks.append(stock)
        out["stocks"] = stocks
    if o.discard_piles:
        out["discardPiles"] = [{"piles": [_pile(p.cards) for p in seat.piles]} if seat.piles else {}
                               for seat in o.discard_piles]
    if o.centre_piles:
        out["centrePiles"] = [_pile(p.cards) for p in o.centre_piles]
    if o.draw_pile_count:
        out["drawPileCount"] = o.draw_pile_count
    if o.set_aside_count:
        out["setAsideCount"] = o.set_aside_count
    if o.events:
        out["events"] = [event_dict(e) for e in o.events]
    if o.legal_moves:
        out["legalMoves"] = [move_dict(m) for m in o.legal_moves]
    return out


def _decision(d: rpb.DecisionRequest) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if d.decision_id:
        out["decisionId"] = str(d.decision_id)
    if d.game_number:
        out["gameNumber"] = d.game_number
    if d.HasField("observation"):
        out["observation"] = observation_dict(d.observation)
    if d.deadline_ms:
        out["deadlineMs"] = d.deadline_ms
    if d.bank_ms:
        out["bankMs"] = d.bank_ms
    if d.packed_legal_moves:
        out["packedLegalMoves"] = list(d.packed_legal_moves)
    return out


def _events(b: rpb.EventBatch) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if b.game_number:
        out["gameNumber"] = b.game_number
    if b.events:
        out["events"] = [event_dict(e) for e in b.events]
    return out


def _result(r: rpb.ActionResult) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if r.decision_id:
        out["decisionId"] = str(r.decision_id)
    if r.applied:
        out["applied"] = [move_dict(m) for m in r.applied]
    if r.dropped:
        out["dropped"] = r.dropped
    if r.fault:
        out["fault"] = _enum(_FAULTS, r.fault)
    if r.error:
        out["error"] = r.error
    if r.strikes:
        out["strikes"] = r.strikes
    return out


_HOT = {"decision": _decision, "events": _events, "result": _result}


def referee_message_dict(message: rpb.RefereeMessage) -> dict[str, Any]:
    """``json_format.MessageToDict(message)``, the hot kinds written directly."""
    kind = message.WhichOneof("body")
    write = _HOT.get(kind) if kind is not None else None
    if write is None:
        converted: dict[str, Any] = json_format.MessageToDict(message)
        return converted
    return {kind: write(getattr(message, kind))}


def referee_message_line(message: rpb.RefereeMessage | bytes) -> bytes:
    """One line of canonical JSON for a message, or for the wire bytes of one."""
    parsed = rpb.RefereeMessage.FromString(message) if isinstance(message, bytes) else message
    return json.dumps(referee_message_dict(parsed), separators=(",", ":")).encode() + b"\n"
