from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class JoinRequest(_message.Message):
    __slots__ = ("key", "bot_name", "bot_version", "capacity")
    KEY_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    CAPACITY_FIELD_NUMBER: _ClassVar[int]
    key: str
    bot_name: str
    bot_version: str
    capacity: int
    def __init__(self, key: _Optional[str] = ..., bot_name: _Optional[str] = ..., bot_version: _Optional[str] = ..., capacity: _Optional[int] = ...) -> None: ...

class Assignment(_message.Message):
    __slots__ = ("match_id", "token")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    token: str
    def __init__(self, match_id: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...
