from spite.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Fault(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_NONE: _ClassVar[Fault]
    FAULT_TIMEOUT: _ClassVar[Fault]
    FAULT_ILLEGAL_MOVE: _ClassVar[Fault]
    FAULT_MALFORMED: _ClassVar[Fault]
    FAULT_WRONG_DECISION: _ClassVar[Fault]

class Policy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    POLICY_UNSPECIFIED: _ClassVar[Policy]
    POLICY_FORFEIT: _ClassVar[Policy]
    POLICY_SUBSTITUTE: _ClassVar[Policy]

class MatchState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATE_UNSPECIFIED: _ClassVar[MatchState]
    MATCH_STATE_WAITING: _ClassVar[MatchState]
    MATCH_STATE_RUNNING: _ClassVar[MatchState]
    MATCH_STATE_FINISHED: _ClassVar[MatchState]
    MATCH_STATE_ABORTED: _ClassVar[MatchState]
    MATCH_STATE_VOID: _ClassVar[MatchState]

class SeatStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_STATUS_UNSPECIFIED: _ClassVar[SeatStatus]
    SEAT_STATUS_PENDING: _ClassVar[SeatStatus]
    SEAT_STATUS_ACTIVE: _ClassVar[SeatStatus]
    SEAT_STATUS_DONE: _ClassVar[SeatStatus]
    SEAT_STATUS_ERROR: _ClassVar[SeatStatus]
    SEAT_STATUS_INVALID: _ClassVar[SeatStatus]
    SEAT_STATUS_TIMEOUT: _ClassVar[SeatStatus]

class FaultKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_KIND_UNSPECIFIED: _ClassVar[FaultKind]
    FAULT_KIND_TIMEOUT: _ClassVar[FaultKind]
    FAULT_KIND_ILLEGAL_MOVE: _ClassVar[FaultKind]
    FAULT_KIND_MALFORMED: _ClassVar[FaultKind]
    FAULT_KIND_WRONG_DECISION: _ClassVar[FaultKind]
    FAULT_KIND_NO_SHOW: _ClassVar[FaultKind]
    FAULT_KIND_CRASH: _ClassVar[FaultKind]
    FAULT_KIND_DISCONNECT: _ClassVar[FaultKind]
FAULT_NONE: Fault
FAULT_TIMEOUT: Fault
FAULT_ILLEGAL_MOVE: Fault
FAULT_MALFORMED: Fault
FAULT_WRONG_DECISION: Fault
POLICY_UNSPECIFIED: Policy
POLICY_FORFEIT: Policy
POLICY_SUBSTITUTE: Policy
MATCH_STATE_UNSPECIFIED: MatchState
MATCH_STATE_WAITING: MatchState
MATCH_STATE_RUNNING: MatchState
MATCH_STATE_FINISHED: MatchState
MATCH_STATE_ABORTED: MatchState
MATCH_STATE_VOID: MatchState
SEAT_STATUS_UNSPECIFIED: SeatStatus
SEAT_STATUS_PENDING: SeatStatus
SEAT_STATUS_ACTIVE: SeatStatus
SEAT_STATUS_DONE: SeatStatus
SEAT_STATUS_ERROR: SeatStatus
SEAT_STATUS_INVALID: SeatStatus
SEAT_STATUS_TIMEOUT: SeatStatus
FAULT_KIND_UNSPECIFIED: FaultKind
FAULT_KIND_TIMEOUT: FaultKind
FAULT_KIND_ILLEGAL_MOVE: FaultKind
FAULT_KIND_MALFORMED: FaultKind
FAULT_KIND_WRONG_DECISION: FaultKind
FAULT_KIND_NO_SHOW: FaultKind
FAULT_KIND_CRASH: FaultKind
FAULT_KIND_DISCONNECT: FaultKind

class BotMessage(_message.Message):
    __slots__ = ("hello", "action")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    action: Action
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("token", "name", "version", "protocol_version", "warm", "compact")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    WARM_FIELD_NUMBER: _ClassVar[int]
    COMPACT_FIELD_NUMBER: _ClassVar[int]
    token: str
    name: str
    version: str
    protocol_version: int
    warm: bool
    compact: bool
    def __init__(self, token: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., protocol_version: _Optional[int] = ..., warm: _Optional[bool] = ..., compact: _Optional[bool] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("decision_id", "move_index", "move", "plan", "debug")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    MOVE_INDEX_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    DEBUG_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    move_index: int
    move: _game_pb2.Move
    plan: Plan
    debug: str
    def __init__(self, decision_id: _Optional[int] = ..., move_index: _Optional[int] = ..., move: _Optional[_Union[_game_pb2.Move, _Mapping]] = ..., plan: _Optional[_Union[Plan, _Mapping]] = ..., debug: _Optional[str] = ...) -> None: ...

class Plan(_message.Message):
    __slots__ = ("moves",)
    MOVES_FIELD_NUMBER: _ClassVar[int]
    moves: _containers.RepeatedCompositeFieldContainer[_game_pb2.Move]
    def __init__(self, moves: _Optional[_Iterable[_Union[_game_pb2.Move, _Mapping]]] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("welcome", "game_start", "events", "decision", "result", "game_over", "match_over", "refusal")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    GAME_START_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    game_start: GameStart
    events: EventBatch
    decision: DecisionRequest
    result: ActionResult
    game_over: GameOver
    match_over: MatchOver
    refusal: Refusal
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., game_start: _Optional[_Union[GameStart, _Mapping]] = ..., events: _Optional[_Union[EventBatch, _Mapping]] = ..., decision: _Optional[_Union[DecisionRequest, _Mapping]] = ..., result: _Optional[_Union[ActionResult, _Mapping]] = ..., game_over: _Optional[_Union[GameOver, _Mapping]] = ..., match_over: _Optional[_Union[MatchOver, _Mapping]] = ..., refusal: _Optional[_Union[Refusal, _Mapping]] = ...) -> None: ...

class Refusal(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("seat", "rules", "time_control", "games", "match_id", "protocol_version", "seat_names", "policy")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    rules: _game_pb2.RuleSet
    time_control: TimeControl
    games: int
    match_id: str
    protocol_version: int
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    policy: Policy
    def __init__(self, seat: _Optional[int] = ..., rules: _Optional[_Union[_game_pb2.RuleSet, _Mapping]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., games: _Optional[int] = ..., match_id: _Optional[str] = ..., protocol_version: _Optional[int] = ..., seat_names: _Optional[_Iterable[str]] = ..., policy: _Optional[_Union[Policy, str]] = ...) -> None: ...

class GameStart(_message.Message):
    __slots__ = ("game_number", "first_seat", "observation", "bot_seed", "warm", "compact")
    GAME_NUMBER_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    BOT_SEED_FIELD_NUMBER: _ClassVar[int]
    WARM_FIELD_NUMBER: _ClassVar[int]
    COMPACT_FIELD_NUMBER: _ClassVar[int]
    game_number: int
    first_seat: int
    observation: _game_pb2.Observation
    bot_seed: int
    warm: bool
    compact: bool
    def __init__(self, game_number: _Optional[int] = ..., first_seat: _Optional[int] = ..., observation: _Optional[_Union[_game_pb2.Observation, _Mapping]] = ..., bot_seed: _Optional[int] = ..., warm: _Optional[bool] = ..., compact: _Optional[bool] = ...) -> None: ...

class EventBatch(_message.Message):
    __slots__ = ("game_number", "events")
    GAME_NUMBER_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game_number: int
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.Event]
    def __init__(self, game_number: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_game_pb2.Event, _Mapping]]] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("decision_id", "game_number", "observation", "deadline_ms", "bank_ms", "packed_legal_moves")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_NUMBER_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    PACKED_LEGAL_MOVES_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    game_number: int
    observation: _game_pb2.Observation
    deadline_ms: int
    bank_ms: int
    packed_legal_moves: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, decision_id: _Optional[int] = ..., game_number: _Optional[int] = ..., observation: _Optional[_Union[_game_pb2.Observation, _Mapping]] = ..., deadline_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., packed_legal_moves: _Optional[_Iterable[int]] = ...) -> None: ...

class ActionResult(_message.Message):
    __slots__ = ("decision_id", "applied", "dropped", "fault", "error", "strikes")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    DROPPED_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    applied: _containers.RepeatedCompositeFieldContainer[_game_pb2.Move]
    dropped: int
    fault: Fault
    error: str
    strikes: int
    def __init__(self, decision_id: _Optional[int] = ..., applied: _Optional[_Iterable[_Union[_game_pb2.Move, _Mapping]]] = ..., dropped: _Optional[int] = ..., fault: _Optional[_Union[Fault, str]] = ..., error: _Optional[str] = ..., strikes: _Optional[int] = ...) -> None: ...

class GameOver(_message.Message):
    __slots__ = ("game_number", "outcome")
    GAME_NUMBER_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    game_number: int
    outcome: _game_pb2.Outcome
    def __init__(self, game_number: _Optional[int] = ..., outcome: _Optional[_Union[_game_pb2.Outcome, _Mapping]] = ...) -> None: ...

class MatchOver(_message.Message):
    __slots__ = ("points", "wins", "winners", "reason")
    POINTS_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    points: _containers.RepeatedScalarFieldContainer[int]
    wins: _containers.RepeatedScalarFieldContainer[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    reason: str
    def __init__(self, points: _Optional[_Iterable[int]] = ..., wins: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ..., reason: _Optional[str] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("decision_ms", "bank_ms", "connect_ms")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    CONNECT_MS_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    bank_ms: int
    connect_ms: int
    def __init__(self, decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., connect_ms: _Optional[int] = ...) -> None: ...

class SeatSpec(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class CreateMatchRequest(_message.Message):
    __slots__ = ("rules", "seats", "time_control", "games", "seed", "policy")
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    rules: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatSpec]
    time_control: TimeControl
    games: int
    seed: int
    policy: Policy
    def __init__(self, rules: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatSpec, _Mapping]]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., games: _Optional[int] = ..., seed: _Optional[int] = ..., policy: _Optional[_Union[Policy, str]] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match_id", "seat_tokens")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat_tokens: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_id: _Optional[str] = ..., seat_tokens: _Optional[_Iterable[str]] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class SeatReport(_message.Message):
    __slots__ = ("seat", "name", "version", "status", "timeouts", "illegal_moves", "malformed", "decisions", "decision_us_p50", "decision_us_p99", "crashes", "faults")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    ILLEGAL_MOVES_FIELD_NUMBER: _ClassVar[int]
    MALFORMED_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    DECISION_US_P50_FIELD_NUMBER: _ClassVar[int]
    DECISION_US_P99_FIELD_NUMBER: _ClassVar[int]
    CRASHES_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    version: str
    status: SeatStatus
    timeouts: int
    illegal_moves: int
    malformed: int
    decisions: int
    decision_us_p50: int
    decision_us_p99: int
    crashes: int
    faults: _containers.RepeatedCompositeFieldContainer[SeatFault]
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., status: _Optional[_Union[SeatStatus, str]] = ..., timeouts: _Optional[int] = ..., illegal_moves: _Optional[int] = ..., malformed: _Optional[int] = ..., decisions: _Optional[int] = ..., decision_us_p50: _Optional[int] = ..., decision_us_p99: _Optional[int] = ..., crashes: _Optional[int] = ..., faults: _Optional[_Iterable[_Union[SeatFault, _Mapping]]] = ...) -> None: ...

class SeatFault(_message.Message):
    __slots__ = ("kind", "reason")
    KIND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    kind: FaultKind
    reason: str
    def __init__(self, kind: _Optional[_Union[FaultKind, str]] = ..., reason: _Optional[str] = ...) -> None: ...

class GameReport(_message.Message):
    __slots__ = ("game_number", "seed", "outcome", "moves", "replay")
    GAME_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    game_number: int
    seed: int
    outcome: _game_pb2.Outcome
    moves: int
    replay: str
    def __init__(self, game_number: _Optional[int] = ..., seed: _Optional[int] = ..., outcome: _Optional[_Union[_game_pb2.Outcome, _Mapping]] = ..., moves: _Optional[int] = ..., replay: _Optional[str] = ...) -> None: ...

class MatchStatus(_message.Message):
    __slots__ = ("match_id", "state", "rules", "seats", "games", "result")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    state: MatchState
    rules: _game_pb2.RuleSet
    seats: _containers.RepeatedCompositeFieldContainer[SeatReport]
    games: _containers.RepeatedCompositeFieldContainer[GameReport]
    result: MatchOver
    def __init__(self, match_id: _Optional[str] = ..., state: _Optional[_Union[MatchState, str]] = ..., rules: _Optional[_Union[_game_pb2.RuleSet, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatReport, _Mapping]]] = ..., games: _Optional[_Iterable[_Union[GameReport, _Mapping]]] = ..., result: _Optional[_Union[MatchOver, _Mapping]] = ...) -> None: ...

class SpectateRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class SpectatorMessage(_message.Message):
    __slots__ = ("game_start", "events", "game_over", "match_over")
    GAME_START_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    game_start: GameStart
    events: EventBatch
    game_over: GameOver
    match_over: MatchOver
    def __init__(self, game_start: _Optional[_Union[GameStart, _Mapping]] = ..., events: _Optional[_Union[EventBatch, _Mapping]] = ..., game_over: _Optional[_Union[GameOver, _Mapping]] = ..., match_over: _Optional[_Union[MatchOver, _Mapping]] = ...) -> None: ...
