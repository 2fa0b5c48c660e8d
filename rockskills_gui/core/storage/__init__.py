"""Bytes on disk: atomic and conflict-checked writes, untrusted paths, change sets and history, the
crash journal, the app's own folders.
"""
