"""Bot processes: a manifest (``manifest``), its build in the sandbox (``build``), the process
itself, limited, paused between decisions and reaped with all it started (``launcher``, over
``referee.sandbox``), private scratch folders (``scratch``) and the signals that end a command
(``shutdown``). Nothing here speaks the protocol: that is ``referee.transports``."""
