"""Maintainer tools: not shipped with the wizard, run by hand (see maint/harvest)."""
