"""Panes: widgets built from an :class:`~rockskills_gui.ui.context.AppContext`.

Each pane takes ``(ctx, parent=None)``, reads ``ctx.library``, listens to the context's signals
and changes the library only through ``ctx.apply`` / ``ctx.undo`` / ``ctx.redo``. The main window
places them (Library dock, workspace tabs, Problems dock); later issues replace the placeholders
here with the real tree, editor, recall playground, heatmap and dream wizard.
"""
