"""Harvest version facts from the wheels pip really installs into assets/knowledge/harvest.json.

Run ``python -m maint.harvest --help``. It downloads gigabytes, so CI does not run it; its parsers
(fatbin, wheelinfo, resolve) are unit-tested on small wheels and fatbins the tests build.
"""
