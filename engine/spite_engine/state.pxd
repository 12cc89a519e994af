# Typed declarations for the compiled build of state.py (engine/compile.py; Cython reads this
# file beside the source, which stays plain Python). Python ignores it.
cimport cython

cdef Py_ssize_t _PLAY, _DISCARD, _HAND, _STOCK


cdef class GameState:
    cdef public object rules
    cdef public object seed
    cdef public list draw_pile
    cdef public list stocks
    cdef public list hands
    cdef public list discards
    cdef public list centre
    cdef public list set_aside
    cdef public Py_ssize_t to_move
    cdef public Py_ssize_t turn
    cdef public object outcome
    cdef public list log
    cdef public list cursors
    cdef public Py_ssize_t shuffles
    cdef public Py_ssize_t stuck_turns
    cdef public bint turn_stuck
    cdef public Py_ssize_t first_seat
    cdef public frozenset _wild
    cdef public tuple _stock_of
    cdef public Py_ssize_t _max_rank
    cdef public object _stock_views
    cdef public object _discard_views
    cdef public list _observed
    cdef public list _fits_now
    cdef public Py_ssize_t _empty_centre
    cdef public object _centre_seen

    @cython.locals(seat=Py_ssize_t, previous=Py_ssize_t, card=Py_ssize_t, mask=Py_ssize_t, started=Py_ssize_t,
                   index=Py_ssize_t, empty=Py_ssize_t, targets=Py_ssize_t, top=Py_ssize_t, no_block=bint, keep_aces=bint,
                   fits=list, moves=list, discardable=list, pile=list, stock=list)
    cpdef list legal_moves(self)

    @cython.locals(seat=Py_ssize_t, height=Py_ssize_t, bit=Py_ssize_t, kind=Py_ssize_t, source=Py_ssize_t,
                   index=Py_ssize_t, card=Py_ssize_t, target=Py_ssize_t,
                   stock_index=Py_ssize_t, hand=list, centre=list, pile=list, fits=list, observed=list)
    cpdef apply(self, move)

    @cython.locals(seat=Py_ssize_t, stock=list, fits_=list, pile=list)
    cpdef bint _has_play(self, fits)

    @cython.locals(empty=Py_ssize_t)
    cpdef _started_centre_pile(self, Py_ssize_t bit)

    @cython.locals(empty=Py_ssize_t)
    cpdef _emptied_centre_pile(self, Py_ssize_t bit)

    @cython.locals(fits=list, first=Py_ssize_t, every=Py_ssize_t)
    cpdef _set_empty_fits(self, Py_ssize_t empty)

    @cython.locals(stock=list)
    cpdef _reveal(self, Py_ssize_t stock_index)

    @cython.locals(hand=list, need=Py_ssize_t, draw_pile=list, drawn=list, total=Py_ssize_t, take=Py_ssize_t)
    cpdef Py_ssize_t _refill(self, Py_ssize_t seat)

    cpdef _end_turn(self)

    @cython.locals(pile=list)
    cpdef _complete_pile(self, Py_ssize_t index)

    cpdef _shuffle_draw_pile(self)

    @cython.locals(seat=Py_ssize_t, fits=list, hand=list)
    cpdef _start_turn(self)
