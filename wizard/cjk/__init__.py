"""Chinese (and Japanese) text in a terminal: where a line may break (`linebreak`)."""

from wizard.cjk.linebreak import install_cjk_wrapping, words

__all__ = ["install_cjk_wrapping", "words"]
