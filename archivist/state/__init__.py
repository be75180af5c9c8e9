"""Typed state items (decision, constraint, action, question, risk) kept across versions."""
