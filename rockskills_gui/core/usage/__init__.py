"""Usage logs and what they say: events, counts, pairs, the matrix, signals, reports."""
