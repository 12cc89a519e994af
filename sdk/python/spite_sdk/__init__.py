"""Spite Arena's Python SDK: write a bot as one method, observation in, move out."""
