"""Typed state items (decision, constraint, action, question, risk, fact) kept across versions."""
