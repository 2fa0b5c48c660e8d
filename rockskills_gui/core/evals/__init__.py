"""Trigger evals: which skill the model picks when the agent presents its skills (issue 31).

Modules (no Qt; plain data a pane or the CLI drives):

- ``trigger_file``  the field's ``[{"query", "should_trigger"}]`` files: read, import, export
- ``presentation``  what a run sends: the agent's listing and the activation tool it offers
- ``detect``        which listed skill a reply's first tool call activates
- ``cache``         replies already seen, by (model, listing, query, run), in the app's cache
- ``run``           the requests: concurrent, cached, cancellable, with progress and an estimate
- ``report``        rates, pass/fail, precision and recall, and the confusion view
- ``snapshots``     named results beside the library, and their comparison
"""
