"""Generated from proto/spite/v1 by sdk/python/generate.py; do not edit."""
