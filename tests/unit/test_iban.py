"""IBANs and BICs of payouts, and the BOOKING_SEPA_DEBTOR_* settings that use them."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from booking_core.iban import parse_bic, parse_iban
from entrypoints.config import ConfigError, load_settings

ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def with_check_digits(country: str, account: str) -> str:
    """The IBAN of ``account`` in ``country``, with the check digits ISO 13616 computes."""
    digits = "".join(str(int(char, 36)) for char in account + country + "00")
    return f"{country}{98 - int(digits) % 97:02d}{account}"


countries = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=2, max_size=2)
accounts = st.text(alphabet=ALPHANUMERIC, min_size=11, max_size=30)


@given(countries, accounts)
def test_an_iban_with_its_check_digits_is_accepted_in_compact_form(country: str, account: str) -> None:
    iban = with_check_digits(country, account)
    spaced = " ".join(iban[i : i + 4] for i in range(0, len(iban), 4)).lower()

    assert parse_iban(spaced) == iban


@given(countries, accounts, st.data())
def test_a_changed_character_breaks_the_check_digits(country: str, account: str, data: st.DataObject) -> None:
    iban = with_check_digits(country, account)
    digits = [i for i in range(4, len(iban)) if iban[i].isdigit()]
    assume(digits)  # mod 97 catches every change of one digit (of the number the letters expand to)
    position = data.draw(st.sampled_from(digits))
    other = data.draw(st.sampled_from([c for c in "0123456789" if c != iban[position]]))

    with pytest.raises(ValueError, match="check digits"):
        parse_iban(iban[:position] + other + iban[position + 1 :])


@pytest.mark.parametrize("raw", ["", "DE89", "DE8937040044053201300O!", "1289370400440532013000"])
def test_what_is_not_shaped_like_an_iban_is_refused(raw: str) -> None:
    with pytest.raises(ValueError, match="must be an IBAN"):
        parse_iban(raw)


@pytest.mark.parametrize(("raw", "bic"), [("cobadeffxxx", "COBADEFFXXX"), (" SOGEDEFF ", "SOGEDEFF")])
def test_bics_of_8_or_11_characters(raw: str, bic: str) -> None:
    assert parse_bic(raw) == bic


@pytest.mark.parametrize("raw", ["COBADEFF1", "COBA", "1OBADEFFXXX"])
def test_other_bics_are_refused(raw: str) -> None:
    with pytest.raises(ValueError, match="must be a BIC"):
        parse_bic(raw)


def test_the_debtor_settings_are_optional_until_a_payout_needs_them() -> None:
    debtor = load_settings({}, None).sepa_debtor

    with pytest.raises(ConfigError, match=r"^BOOKING_SEPA_DEBTOR_NAME: must be set"):
        debtor.require()


def test_the_debtor_settings_are_checked_and_normalized() -> None:
    settings = load_settings(
        {
            "BOOKING_SEPA_DEBTOR_NAME": "Court Booking GmbH",
            "BOOKING_SEPA_DEBTOR_IBAN": "de75 5121 0800 1245 1261 99",
            "BOOKING_SEPA_DEBTOR_BIC": "sogedeffxxx",
        },
        None,
    )

    assert settings.sepa_debtor.require() == ("Court Booking GmbH", "DE75512108001245126199", "SOGEDEFFXXX")
    with pytest.raises(ConfigError, match=r"^BOOKING_SEPA_DEBTOR_IBAN: must be set"):
        load_settings({"BOOKING_SEPA_DEBTOR_NAME": "Op"}, None).sepa_debtor.require()
    with pytest.raises(ConfigError, match=r"^BOOKING_SEPA_DEBTOR_IBAN: is not a valid IBAN"):
        load_settings({"BOOKING_SEPA_DEBTOR_IBAN": "DE00512108001245126199"}, None)
