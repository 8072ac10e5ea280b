"""Shared safety helpers: whole-file atomic writes and bounded reads (`atomic`), strings from data made
safe to show (`display`), one run at a time (`lock`), a profile session's hints that keep
--profile (`profile_hint`). Each module's docstring is its API.
"""
