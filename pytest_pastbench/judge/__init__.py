"""Judges: the seam, the LLM judge, the offline reference judge, judge agreement."""
