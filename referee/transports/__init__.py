"""How a bot reaches a match: over gRPC (``server``) or its pipes (``stdio``: JSON lines or
protobuf frames), both on one session (``session``: hello, admission, tokens, warm hand-over;
``warm``: one connection playing match after match). No transport imports another."""
