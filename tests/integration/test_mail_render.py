"""Email as it leaves the service: both languages rendered, then read back as a mail client would
(MIME parsed, the ``.ics`` opened with ``icalendar``); the file and console transports."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import cast
from zoneinfo import ZoneInfo

import pytest
from icalendar import Calendar

from adapters.mail import ConsoleMailer, FileMailer, render_email
from booking_core.accounts import Language, User
from booking_core.errors import MailDeliveryFailed
from booking_core.notifications import BookingFacts, ChangeFacts, Notification, compose_account
from booking_core.outbox import ACCOUNT_TEMPLATES, MailTemplate

BERLIN = ZoneInfo("Europe/Berlin")
SENDER = "bookings@center.example"
FACTS = BookingFacts(
    booking_id="6f1c0c8e-0000-4000-8000-000000000001",
    reference_code="ABCD2345",
    status="paid",
    venue_name="Center <Court> & Co",
    venue_address="Hauptstrasse 1, 10115 Berlin",
    venue_timezone="Europe/Berlin",
    operator_email="ops@center.example",
    resource_name="Court 1",
    start=datetime(2026, 12, 1, 10, 0, tzinfo=BERLIN),
    end=datetime(2026, 12, 1, 11, 30, tzinfo=BERLIN),
    participant_count=2,
    total_price=Decimal("1234.50"),
    currency="EUR",
    notes="Bring <b>balls</b>",
    paid=True,
    cancellation_reason=None,
    user_name="Anna Schmidt",
    user_email="anna@example.com",
)
EXPECTED = {
    Language.EN: {
        MailTemplate.BOOKING_PAID_USER: ["Booking confirmed", "Tuesday, 1 December 2026", "10:00 to 11:30",
                                        "€1,234.50", "Hauptstrasse 1, 10115 Berlin", "Court 1", "ABCD2345"],
        MailTemplate.BOOKING_PAID_OPERATOR: ["New paid booking ABCD2345", "Anna Schmidt", "anna@example.com",
                                            "Tuesday, 1 December 2026", "€1,234.50", "Court 1"],
        MailTemplate.BOOKING_CANCELLED_USER: ["Booking cancelled", "ABCD2345", "will be refunded"],
        MailTemplate.BOOKING_REFUNDED_USER: ["Refund of booking ABCD2345", "€1,234.50"],
        MailTemplate.BOOKING_CANCELLED_BY_VENUE_USER: ["Cancelled by Center <Court> & Co", "ABCD2345",
                                                      "for operational reasons", "€12.50"],
        MailTemplate.BOOKING_MOVED_USER: ["Booking moved", "ABCD2345", "Tuesday, 1 December 2026",
                                         "10:00 to 11:30", "Monday, 30 November 2026", "18:00 to 19:30",
                                         "Court 2"],
        MailTemplate.BOOKING_BY_STAFF_USER: ["Your booking", "ABCD2345",
                                            "€1,234.50", "paid and confirmed"],
    },
    Language.DE: {
        MailTemplate.BOOKING_PAID_USER: ["Buchung bestätigt", "Dienstag, 1. Dezember 2026",
                                        "10:00 bis 11:30 Uhr", "1.234,50 €", "Hauptstrasse 1, 10115 Berlin",
                                        "Court 1", "ABCD2345"],
        MailTemplate.BOOKING_PAID_OPERATOR: ["Neue bezahlte Buchung ABCD2345", "Anna Schmidt",
                                            "anna@example.com", "Dienstag, 1. Dezember 2026", "1.234,50 €",
                                            "Court 1"],
        MailTemplate.BOOKING_CANCELLED_USER: ["Buchung storniert", "ABCD2345", "erstattet"],
        MailTemplate.BOOKING_REFUNDED_USER: ["Erstattung zur Buchung ABCD2345", "1.234,50 €"],
        MailTemplate.BOOKING_CANCELLED_BY_VENUE_USER: ["Absage durch Center <Court> & Co", "ABCD2345",
                                                      "aus betrieblichen Gründen", "12,50 €"],
        MailTemplate.BOOKING_MOVED_USER: ["Buchung verlegt", "ABCD2345", "Dienstag, 1. Dezember 2026",
                                         "10:00 bis 11:30 Uhr", "Montag, 30. November 2026",
                                         "18:00 bis 19:30 Uhr", "Court 2"],
        MailTemplate.BOOKING_BY_STAFF_USER: ["Ihre Buchung", "ABCD2345", "1.234,50 €",
                                            "bezahlt und bestätigt"],
    },
}  # fmt: skip


#: What the outbox message of each template carries beyond the booking.
MOVED = ChangeFacts(
    old_start=datetime(2026, 11, 30, 18, 0, tzinfo=BERLIN),
    old_end=datetime(2026, 11, 30, 19, 30, tzinfo=BERLIN),
    old_resource_name="Court 2",
    calendar_sequence=86400,
)
CHANGES = {
    MailTemplate.BOOKING_CANCELLED_BY_VENUE_USER: ChangeFacts(refund_amount=Decimal("12.50")),
    MailTemplate.BOOKING_MOVED_USER: MOVED,
}


def _notification(
    template: MailTemplate, language: Language, facts: BookingFacts = FACTS, change: ChangeFacts | None = None
) -> Notification:
    to_user = template is not MailTemplate.BOOKING_PAID_OPERATOR
    return Notification(
        template=template,
        language=language,
        recipient="anna@example.com" if to_user else "ops@center.example",
        recipient_name="Anna Schmidt" if to_user else "Center <Court> & Co",
        reply_to="ops@center.example" if to_user else "anna@example.com",
        facts=facts,
        change=change or CHANGES.get(template, ChangeFacts()),
    )


def _texts(notification: Notification) -> tuple[str, str, str]:
    """Subject, text and HTML (unescaped) of the rendered message."""
    mail = _read_back(render_email(notification, sender=SENDER, message_id="<m@center.example>"))
    text = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    html = mail.get_body(("html",)).get_content()  # type: ignore[union-attr]
    for tag in ("<strong>", "</strong>"):
        html = html.replace(tag, "")
    plain_html = " ".join(html.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").split())
    return str(mail["Subject"]).strip(), text, plain_html


def _read_back(message: EmailMessage) -> EmailMessage:
    """The message as bytes on the wire, parsed again as a mail client does."""
    return cast(EmailMessage, message_from_bytes(message.as_bytes(policy=policy.SMTP), policy=policy.default))


@pytest.mark.parametrize("language", list(Language))
@pytest.mark.parametrize("template", [t for t in MailTemplate if t not in ACCOUNT_TEMPLATES])
def test_every_email_renders_in_both_languages(template: MailTemplate, language: Language) -> None:
    sent = render_email(_notification(template, language), sender=SENDER, message_id="<m-1@center.example>")
    mail = _read_back(sent)
    assert mail["Message-ID"] == "<m-1@center.example>"
    assert mail["From"] == SENDER
    assert mail["Content-Language"] == language.value
    text = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    html = mail.get_body(("html",)).get_content()  # type: ignore[union-attr]
    subject, *expected = EXPECTED[language][template]
    assert subject in mail["Subject"]
    for part in expected:
        assert part in text, (part, text)
        assert part in html.replace("&amp;", "&"), part
    assert "Center <Court> & Co" in text
    assert "Center &lt;Court&gt; &amp; Co" in html  # HTML is escaped, text is not
    assert "<Court>" not in html
    assert f'lang="{language.value}"' in html


ACCOUNT_EXPECTED = {
    Language.EN: {
        MailTemplate.CONFIRM_EMAIL: ["confirm your email address", "valid for 24 hours"],
        MailTemplate.PASSWORD_RESET: ["reset your password", "valid for 24 hours"],
    },
    Language.DE: {
        MailTemplate.CONFIRM_EMAIL: ["Bestätigung Ihrer E-Mail-Adresse", "24 Stunden gültig"],
        MailTemplate.PASSWORD_RESET: ["Zurücksetzen Ihres Passworts", "24 Stunden gültig"],
    },
}


@pytest.mark.parametrize("language", list(Language))
@pytest.mark.parametrize("template", sorted(ACCOUNT_TEMPLATES))
def test_every_account_email_carries_its_code_in_both_languages(
    template: MailTemplate, language: Language
) -> None:
    user = User(
        id="u-1",
        email="anna@example.com",
        first_name="Anna <b>",
        language=language,
        created_at=datetime.now(UTC),
    )
    notification = compose_account(template, user, "04711123")
    mail = _read_back(render_email(notification, sender=SENDER, message_id="<m-9@center.example>"))
    assert mail["Content-Language"] == language.value
    assert mail["To"].addresses[0].addr_spec == "anna@example.com"
    text = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    html = mail.get_body(("html",)).get_content()  # type: ignore[union-attr]
    subject, hours = ACCOUNT_EXPECTED[language][template]
    assert subject in mail["Subject"]
    assert "04711123" in mail["Subject"]
    for part in ("04711123", hours):
        assert part in text
        assert part in html
    assert "Anna <b>" in text
    assert "Anna &lt;b&gt;" in html
    assert not mail.get_content_type().startswith("multipart/mixed")  # no calendar file


def test_the_users_confirmation_carries_the_booking_as_a_calendar_event() -> None:
    sent = render_email(
        _notification(MailTemplate.BOOKING_PAID_USER, Language.DE),
        sender=SENDER,
        message_id="<m-2@center.example>",
        now=datetime(2026, 11, 1, tzinfo=UTC),
    )
    mail = _read_back(sent)
    assert mail["To"] == "Anna Schmidt <anna@example.com>"
    assert mail["Reply-To"] == "ops@center.example"
    [attachment] = list(mail.iter_attachments())
    assert attachment.get_content_type() == "text/calendar"
    assert attachment.get_filename() == "booking-ABCD2345.ics"
    calendar = Calendar.from_ical(attachment.get_content())
    [event] = calendar.walk("VEVENT")
    assert str(event["UID"]) == f"booking-{FACTS.booking_id}@center.example"
    assert event.decoded("DTSTART") == FACTS.start
    assert event.decoded("DTEND") == FACTS.end
    assert str(event["LOCATION"]) == "Center <Court> & Co, Hauptstrasse 1, 10115 Berlin"
    assert "Court 1" in str(event["SUMMARY"])
    assert str(calendar["METHOD"]) == "PUBLISH"
    assert calendar.walk("VTIMEZONE")[0]["TZID"] == "Europe/Berlin"
    # the same booking gets the same UID in a later email, so calendars update instead of doubling
    again = render_email(
        _notification(MailTemplate.BOOKING_PAID_USER, Language.EN), sender=SENDER, message_id="<m-3@x>"
    )
    [later] = Calendar.from_ical(next(_read_back(again).iter_attachments()).get_content()).walk("VEVENT")
    assert later["UID"] == event["UID"]


WITH_CALENDAR = {MailTemplate.BOOKING_PAID_USER, MailTemplate.BOOKING_MOVED_USER}


@pytest.mark.parametrize("template", [t for t in MailTemplate if t not in WITH_CALENDAR])
def test_other_emails_have_no_attachment(template: MailTemplate) -> None:
    mail = _read_back(render_email(_notification(template, Language.EN), sender=SENDER, message_id="<m@x>"))
    assert list(mail.iter_attachments()) == []


def test_the_file_transport_writes_one_file_per_message_id(tmp_path: Path) -> None:
    mailer = FileMailer(tmp_path / "mail", sender=SENDER)
    notification = _notification(MailTemplate.BOOKING_PAID_USER, Language.EN)
    mailer.send(notification, message_id="<m-9@center.example>")
    mailer.send(notification, message_id="<m-9@center.example>")  # a retry replaces its own file
    [written] = list((tmp_path / "mail").iterdir())
    assert written.name == "m-9_center.example.eml"
    mail = message_from_bytes(written.read_bytes(), policy=policy.default)
    assert mail["Message-ID"] == "<m-9@center.example>"


def test_the_file_transport_reports_an_unwritable_directory(tmp_path: Path) -> None:
    blocker = tmp_path / "mail"
    blocker.write_text("a file where the directory should be")
    with pytest.raises(MailDeliveryFailed) as failure:
        FileMailer(blocker, sender=SENDER).send(
            _notification(MailTemplate.BOOKING_PAID_USER, Language.EN), message_id="<m@x>"
        )
    assert not failure.value.permanent


def test_the_console_transport_prints_the_message() -> None:
    out = io.StringIO()
    ConsoleMailer(sender=SENDER, stream=out).send(
        _notification(MailTemplate.BOOKING_REFUNDED_USER, Language.DE), message_id="<m-4@x>"
    )
    assert "Message-ID: <m-4@x>" in out.getvalue()
    assert "Erstattung zur Buchung ABCD2345" in out.getvalue()


def test_a_message_that_cannot_be_built_is_a_permanent_failure(tmp_path: Path) -> None:
    broken = _notification(MailTemplate.BOOKING_PAID_USER, Language.EN)
    broken = Notification(
        template=broken.template,
        language=broken.language,
        recipient="not an address",
        recipient_name="X",
        reply_to=None,
        facts=FACTS,
    )
    with pytest.raises(MailDeliveryFailed) as failure:
        FileMailer(tmp_path, sender=SENDER).send(broken, message_id="<m@x>")
    assert failure.value.permanent


def test_a_moved_booking_updates_the_calendar_event_it_sent_before() -> None:
    first = _read_back(
        render_email(
            _notification(MailTemplate.BOOKING_PAID_USER, Language.EN), sender=SENDER, message_id="<a@x>"
        )
    )
    moved = _read_back(
        render_email(
            _notification(MailTemplate.BOOKING_MOVED_USER, Language.DE), sender=SENDER, message_id="<b@x>"
        )
    )
    [before] = Calendar.from_ical(next(first.iter_attachments()).get_content()).walk("VEVENT")
    [attachment] = list(moved.iter_attachments())
    assert attachment.get_filename() == "booking-ABCD2345.ics"
    [after] = Calendar.from_ical(attachment.get_content()).walk("VEVENT")
    assert after["UID"] == before["UID"]
    assert int(after["SEQUENCE"]) > int(before["SEQUENCE"])
    assert after.decoded("DTSTART") == FACTS.start  # the new time


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (Language.EN, ["because of the weather", "no refund"]),
        (Language.DE, ["wegen des Wetters", "keine Erstattung"]),
    ],
)
def test_a_venues_cancellation_without_a_refund_says_so(language: Language, words: list[str]) -> None:
    facts = replace(FACTS, status="cancelled", cancellation_reason="weather")
    notification = _notification(
        MailTemplate.BOOKING_CANCELLED_BY_VENUE_USER,
        language,
        facts,
        ChangeFacts(refund_amount=Decimal("0.00")),
    )
    _, text, html = _texts(notification)
    for word in words:
        assert word in text
        assert word in html.replace("Keine", "keine")
    assert "1.234,50" not in text
    assert "1,234.50" not in text


@pytest.mark.parametrize(
    ("language", "confirmed", "pending"),
    [
        (Language.EN, "You pay at the venue", "until Tuesday, 1 December 2026, 09:45"),
        (Language.DE, "Sie bezahlen vor Ort", "bis Dienstag, 1. Dezember 2026, 09:45 Uhr"),
    ],
)
def test_a_booking_made_by_staff_says_how_to_pay(language: Language, confirmed: str, pending: str) -> None:
    at_venue = _notification(MailTemplate.BOOKING_BY_STAFF_USER, language, replace(FACTS, status="confirmed"))
    hold = datetime(2026, 12, 1, 9, 45, tzinfo=BERLIN)
    online = _notification(
        MailTemplate.BOOKING_BY_STAFF_USER, language, replace(FACTS, status="pending", hold_expires_at=hold)
    )
    _, text, html = _texts(at_venue)
    assert confirmed in text
    assert confirmed in html
    assert at_venue.has_calendar_event
    subject, text, html = _texts(online)
    assert pending in text
    assert pending in html
    assert "ABCD2345" in text
    assert not online.has_calendar_event
    assert subject.startswith(("Please pay", "Bitte bezahlen"))


@pytest.mark.parametrize(("language", "amount"), [(Language.EN, "€12.50"), (Language.DE, "12,50 €")])
def test_the_refund_mail_names_the_part_given_back(language: Language, amount: str) -> None:
    part = _notification(
        MailTemplate.BOOKING_REFUNDED_USER, language, change=ChangeFacts(refund_amount=Decimal("12.50"))
    )
    subject, text, html = _texts(part)
    assert amount in subject
    assert amount in text
    assert amount in html
