# Typed declarations for the compiled build of observation.py (see state.pxd).
cimport cython
from spite_engine.state cimport GameState


@cython.locals(to_move=Py_ssize_t)
cpdef observe_lazy(GameState state, Py_ssize_t seat)

@cython.locals(piles=tuple, cached=object, seat_piles=list)
cpdef tuple _discard_views(GameState state)

@cython.locals(piles=tuple, cached=object, last=Py_ssize_t, s=list)
cpdef tuple _stock_views(GameState state)

@cython.locals(to_move=Py_ssize_t)
cpdef _build(GameState state, seat)


# An extension type: its __get__ is the type's C slot, not a method looked up and called
# (a non-data descriptor still: no __set__, so the instance's dict wins once a field is built).
cdef class _LazyField:
    cdef readonly object name
    cdef readonly object build
