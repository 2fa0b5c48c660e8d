"""The user's own settings, secrets, endpoint, recent list, demo library and logs."""
