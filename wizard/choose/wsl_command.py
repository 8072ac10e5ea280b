"""The one command that installs WSL2 with the Ubuntu the wizard plans for.

`recommend` names it in its hint for native Windows, the plan's WSL2 step runs it
(wizard.plan.wsl_setup) and the doctor's fix for native Windows shows it, so all three say
the same; it lives here, below plan/ and doctor/, because choose/ never imports plan/.
"""

from __future__ import annotations

from wizard.profile_view import powershell_quote

DISTRO = "Ubuntu-24.04"  # the Ubuntu `wsl --install` offers today; its Python 3.12 is what was planned
WSL_INSTALL = ("wsl", "--install", "-d", DISTRO)


def wsl_install_shown() -> str:
    """The command as PowerShell shows it (plain words bare, anything else quoted)."""
    return " ".join(
        arg if arg and all(ch.isalnum() or ch in "-_.:" for ch in arg) else powershell_quote(arg)
        for arg in WSL_INSTALL
    )
