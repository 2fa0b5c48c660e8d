"""The Budget tab: what each agent really sees of the library (see ``budget_pane``); the main
window builds it when the tab is first shown."""
