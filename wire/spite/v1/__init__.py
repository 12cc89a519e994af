"""Generated from proto/spite/v1 by wire/generate.py; do not edit."""
