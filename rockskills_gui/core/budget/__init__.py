"""The context budget: the text each agent puts in its prompt to advertise skills, its size in
characters and tokens, the skills a limit leaves out, and suggestions with a what-if preview."""
