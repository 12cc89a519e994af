"""The match core: a match's games, seats, deadlines and reports, with no transport and no
process in it (the rules are ``spite_engine``'s; the wire's messages are ``spite_wire``'s).

``match`` plays the games; ``seats`` holds each seat's channel and inbox; ``deadlines`` the
time control, the bank and the referee's own lag; ``reports`` and ``status`` what a match
says of itself; ``replay`` and ``feed`` what it writes for later and for spectators;
``limits`` and ``labels`` the ranges and texts everything above checks against."""
