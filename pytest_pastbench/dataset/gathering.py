"""placeholder"""
FAMILIES = []
