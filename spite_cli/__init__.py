"""The ``spite`` command: one module per group of subcommands, over the tournaments and referee layers."""
