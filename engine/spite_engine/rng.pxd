# Typed declarations for the compiled build of rng.py (see state.pxd).
cimport cython


@cython.locals(n=Py_ssize_t, count=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t, word=cython.ulonglong,
               position=Py_ssize_t, bound=cython.ulonglong, words=tuple)
cpdef keyed_shuffle(items, seed, Py_ssize_t counter)
