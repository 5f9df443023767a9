"""Analyses over the IR: memory dependences and scheduling problems."""
