"""Front ends. Each talks to a game only through :class:`splitnet.frontend.TableSession`.

``splitnet.ui.tui`` is the full-screen table (prompt_toolkit); ``splitnet.ui.plain`` the
line-based one.
"""
