from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MoveKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MOVE_KIND_UNSPECIFIED: _ClassVar[MoveKind]
    MOVE_KIND_PLAY: _ClassVar[MoveKind]
    MOVE_KIND_DISCARD: _ClassVar[MoveKind]
    MOVE_KIND_PASS: _ClassVar[MoveKind]

class Source(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SOURCE_UNSPECIFIED: _ClassVar[Source]
    SOURCE_HAND: _ClassVar[Source]
    SOURCE_STOCK: _ClassVar[Source]
    SOURCE_DISCARD_PILE: _ClassVar[Source]

class Ending(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENDING_UNSPECIFIED: _ClassVar[Ending]
    ENDING_STOCK_EMPTIED: _ClassVar[Ending]
    ENDING_STALEMATE: _ClassVar[Ending]
    ENDING_TURN_CAP: _ClassVar[Ending]
    ENDING_DRAW_PILE_EXHAUSTED: _ClassVar[Ending]
    ENDING_TIMEOUT: _ClassVar[Ending]
    ENDING_ILLEGAL_MOVE: _ClassVar[Ending]
    ENDING_MALFORMED: _ClassVar[Ending]
    ENDING_CRASH: _ClassVar[Ending]
    ENDING_DISCONNECT: _ClassVar[Ending]
    ENDING_NO_SHOW: _ClassVar[Ending]
    ENDING_FORFEIT: _ClassVar[Ending]

class EventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_KIND_UNSPECIFIED: _ClassVar[EventKind]
    EVENT_KIND_DEAL: _ClassVar[EventKind]
    EVENT_KIND_TURN: _ClassVar[EventKind]
    EVENT_KIND_MOVE: _ClassVar[EventKind]
    EVENT_KIND_DRAW: _ClassVar[EventKind]
    EVENT_KIND_REVEAL: _ClassVar[EventKind]
    EVENT_KIND_PILE_COMPLETED: _ClassVar[EventKind]
    EVENT_KIND_SHUFFLE: _ClassVar[EventKind]
    EVENT_KIND_GAME_OVER: _ClassVar[EventKind]
MOVE_KIND_UNSPECIFIED: MoveKind
MOVE_KIND_PLAY: MoveKind
MOVE_KIND_DISCARD: MoveKind
MOVE_KIND_PASS: MoveKind
SOURCE_UNSPECIFIED: Source
SOURCE_HAND: Source
SOURCE_STOCK: Source
SOURCE_DISCARD_PILE: Source
ENDING_UNSPECIFIED: Ending
ENDING_STOCK_EMPTIED: Ending
ENDING_STALEMATE: Ending
ENDING_TURN_CAP: Ending
ENDING_DRAW_PILE_EXHAUSTED: Ending
ENDING_TIMEOUT: Ending
ENDING_ILLEGAL_MOVE: Ending
ENDING_MALFORMED: Ending
ENDING_CRASH: Ending
ENDING_DISCONNECT: Ending
ENDING_NO_SHOW: Ending
ENDING_FORFEIT: Ending
EVENT_KIND_UNSPECIFIED: EventKind
EVENT_KIND_DEAL: EventKind
EVENT_KIND_TURN: EventKind
EVENT_KIND_MOVE: EventKind
EVENT_KIND_DRAW: EventKind
EVENT_KIND_REVEAL: EventKind
EVENT_KIND_PILE_COMPLETED: EventKind
EVENT_KIND_SHUFFLE: EventKind
EVENT_KIND_GAME_OVER: EventKind

class Move(_message.Message):
    __slots__ = ("kind", "source", "source_index", "card", "target")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_INDEX_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    kind: MoveKind
    source: Source
    source_index: int
    card: int
    target: int
    def __init__(self, kind: _Optional[_Union[MoveKind, str]] = ..., source: _Optional[_Union[Source, str]] = ..., source_index: _Optional[int] = ..., card: _Optional[int] = ..., target: _Optional[int] = ...) -> None: ...

class RuleSet(_message.Message):
    __slots__ = ("name", "version", "players", "partners", "deck", "decks", "jokers_per_deck", "kings_wild", "stock_size", "hand_size", "centre_piles", "discard_piles", "open_stock", "no_block", "completed_piles", "draw_pile_exhausted", "discard_aces", "scoring", "match_points", "turn_cap", "wild_ranks")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PARTNERS_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    DECKS_FIELD_NUMBER: _ClassVar[int]
    JOKERS_PER_DECK_FIELD_NUMBER: _ClassVar[int]
    KINGS_WILD_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    CENTRE_PILES_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILES_FIELD_NUMBER: _ClassVar[int]
    OPEN_STOCK_FIELD_NUMBER: _ClassVar[int]
    NO_BLOCK_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_PILES_FIELD_NUMBER: _ClassVar[int]
    DRAW_PILE_EXHAUSTED_FIELD_NUMBER: _ClassVar[int]
    DISCARD_ACES_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    MATCH_POINTS_FIELD_NUMBER: _ClassVar[int]
    TURN_CAP_FIELD_NUMBER: _ClassVar[int]
    WILD_RANKS_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    players: int
    partners: bool
    deck: str
    decks: int
    jokers_per_deck: int
    kings_wild: bool
    stock_size: int
    hand_size: int
    centre_piles: int
    discard_piles: int
    open_stock: int
    no_block: bool
    completed_piles: str
    draw_pile_exhausted: str
    discard_aces: bool
    scoring: str
    match_points: int
    turn_cap: int
    wild_ranks: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ..., players: _Optional[int] = ..., partners: _Optional[bool] = ..., deck: _Optional[str] = ..., decks: _Optional[int] = ..., jokers_per_deck: _Optional[int] = ..., kings_wild: _Optional[bool] = ..., stock_size: _Optional[int] = ..., hand_size: _Optional[int] = ..., centre_piles: _Optional[int] = ..., discard_piles: _Optional[int] = ..., open_stock: _Optional[int] = ..., no_block: _Optional[bool] = ..., completed_piles: _Optional[str] = ..., draw_pile_exhausted: _Optional[str] = ..., discard_aces: _Optional[bool] = ..., scoring: _Optional[str] = ..., match_points: _Optional[int] = ..., turn_cap: _Optional[int] = ..., wild_ranks: _Optional[_Iterable[int]] = ...) -> None: ...

class Outcome(_message.Message):
    __slots__ = ("ending", "winners", "scores", "reason", "offender")
    ENDING_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OFFENDER_FIELD_NUMBER: _ClassVar[int]
    ending: Ending
    winners: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    offender: int
    def __init__(self, ending: _Optional[_Union[Ending, str]] = ..., winners: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ..., offender: _Optional[int] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("kind", "seat", "move", "cards", "count", "pile")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    PILE_FIELD_NUMBER: _ClassVar[int]
    kind: EventKind
    seat: int
    move: Move
    cards: _containers.RepeatedScalarFieldContainer[int]
    count: int
    pile: int
    def __init__(self, kind: _Optional[_Union[EventKind, str]] = ..., seat: _Optional[int] = ..., move: _Optional[_Union[Move, _Mapping]] = ..., cards: _Optional[_Iterable[int]] = ..., count: _Optional[int] = ..., pile: _Optional[int] = ...) -> None: ...

class StockView(_message.Message):
    __slots__ = ("count", "visible")
    COUNT_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_FIELD_NUMBER: _ClassVar[int]
    count: int
    visible: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, count: _Optional[int] = ..., visible: _Optional[_Iterable[int]] = ...) -> None: ...

class Pile(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, cards: _Optional[_Iterable[int]] = ...) -> None: ...

class SeatPiles(_message.Message):
    __slots__ = ("piles",)
    PILES_FIELD_NUMBER: _ClassVar[int]
    piles: _containers.RepeatedCompositeFieldContainer[Pile]
    def __init__(self, piles: _Optional[_Iterable[_Union[Pile, _Mapping]]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("seat", "turn", "to_move", "hand", "hand_sizes", "stocks", "discard_piles", "centre_piles", "draw_pile_count", "set_aside_count", "events", "legal_moves")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    STOCKS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILES_FIELD_NUMBER: _ClassVar[int]
    CENTRE_PILES_FIELD_NUMBER: _ClassVar[int]
    DRAW_PILE_COUNT_FIELD_NUMBER: _ClassVar[int]
    SET_ASIDE_COUNT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_MOVES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    turn: int
    to_move: int
    hand: _containers.RepeatedScalarFieldContainer[int]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    stocks: _containers.RepeatedCompositeFieldContainer[StockView]
    discard_piles: _containers.RepeatedCompositeFieldContainer[SeatPiles]
    centre_piles: _containers.RepeatedCompositeFieldContainer[Pile]
    draw_pile_count: int
    set_aside_count: int
    events: _containers.RepeatedCompositeFieldContainer[Event]
    legal_moves: _containers.RepeatedCompositeFieldContainer[Move]
    def __init__(self, seat: _Optional[int] = ..., turn: _Optional[int] = ..., to_move: _Optional[int] = ..., hand: _Optional[_Iterable[int]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., stocks: _Optional[_Iterable[_Union[StockView, _Mapping]]] = ..., discard_piles: _Optional[_Iterable[_Union[SeatPiles, _Mapping]]] = ..., centre_piles: _Optional[_Iterable[_Union[Pile, _Mapping]]] = ..., draw_pile_count: _Optional[int] = ..., set_aside_count: _Optional[int] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., legal_moves: _Optional[_Iterable[_Union[Move, _Mapping]]] = ...) -> None: ...
