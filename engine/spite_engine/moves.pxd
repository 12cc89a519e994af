# Typed declarations for the compiled build of moves.py (see state.pxd).


# An extension type deriving from dict: it inherits dict's subscript as its C slot, where a
# class deriving from dict gets a slot that looks __getitem__ up and calls it (four times dearer).
cdef class MovesByMask(dict):
    cdef public list row
