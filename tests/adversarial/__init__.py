"""Adversarial tests: hostile libraries, replies and plan files, with randomized attack trials."""
