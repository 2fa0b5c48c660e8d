"""The dream wizard: setup, prompts, run, review, apply pages."""
