"""bbswitch's "enabling discrete graphics" followed by the PCI core's refusal to bring the card out of
D3 (bumblebee-project/bbswitch#186's kernel log): the card stayed off. "enabling" alone says nothing."""

from __future__ import annotations

from wizard.probe.failure_words import bbswitch_off

ENABLING = "[  250.903776] bbswitch: enabling discrete graphics\n"
ACPI = (
    "[  281.026330] ACPI Error: Method parse/execution failed \\_SB.PCI0.PGON, AE_AML_LOOP_TIMEOUT "
    "(20180810/psparse-516)\n"
)
REFUSED = "[  281.027195] pci 0000:01:00.0: Refused to change power state, currently in D3\n"


def test_an_enabling_the_pci_core_refused_leaves_the_card_off() -> None:
    found = bbswitch_off(ENABLING + ACPI + REFUSED)
    assert found == (REFUSED.strip(), "0000:01:00.0")


def test_the_newer_kernels_words_are_read_too() -> None:
    newer = "[   12.5] pci 0000:01:00.0: Refused to change power state from D3hot to D0\n"
    assert bbswitch_off(ENABLING + newer) == (newer.strip(), "0000:01:00.0")


def test_an_enabling_with_no_outcome_or_a_refusal_alone_decides_nothing() -> None:
    assert bbswitch_off(ENABLING + ACPI) is None
    assert bbswitch_off(REFUSED) is None  # no bbswitch: a power state the log alone does not explain


def test_a_card_loaded_on_after_the_refusal_is_on() -> None:
    on = "[  300.1] bbswitch: Succesfully loaded. Discrete card 0000:01:00.0 is on\n"
    assert bbswitch_off(ENABLING + REFUSED + on) is None
