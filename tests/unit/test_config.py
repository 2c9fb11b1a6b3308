"""Settings from the environment and ``.env``: defaults, precedence, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from entrypoints.config import ConfigError, Settings, load_settings, read_env_file


def test_defaults_match_the_contract() -> None:
    settings = load_settings({}, env_file=None)

    assert settings == Settings()
    assert settings.database_url == "sqlite:///var/booking.sqlite3"
    assert (settings.host, settings.port, settings.workers) == ("127.0.0.1", 8000, 1)
    assert settings.payment_provider == "sandbox"
    assert settings.stripe_secret_key.startswith("sk_test_")
    assert settings.stripe_publishable_key.startswith("pk_test_")
    assert settings.stripe_webhook_secret == "whsec_dev"
    assert settings.stripe_api_base is None
    assert (settings.mail_backend, settings.mail_dir) == ("file", Path("var/mail"))
    assert (settings.smtp_host, settings.smtp_port, settings.smtp_starttls) == ("127.0.0.1", 25, False)
    assert settings.smtp_username is None
    assert settings.smtp_password is None
    assert settings.mail_from == "bookings@localhost"
    assert settings.pending_hold_minutes == 15
    assert settings.max_unpaid_per_user == 5
    assert settings.rate_limit_per_minute == 600
    assert settings.inprocess_worker is True
    assert settings.db_lock_timeout_ms == 5000
    assert (settings.database_replica_url, settings.redis_url, settings.redis_namespace) == (
        None,
        None,
        "booking",
    )


def test_every_variable_is_read() -> None:
    settings = load_settings(
        {
            "BOOKING_DATABASE_URL": "postgresql://u@db/booking",
            "BOOKING_HOST": "::1",
            "BOOKING_PORT": "9000",
            "BOOKING_WORKERS": "4",
            "BOOKING_PAYMENT_PROVIDER": "stripe",
            "BOOKING_STRIPE_SECRET_KEY": "sk_test_123",
            "BOOKING_STRIPE_PUBLISHABLE_KEY": "pk_test_123",
            "BOOKING_STRIPE_WEBHOOK_SECRET": "whsec_x",
            "BOOKING_STRIPE_API_BASE": "http://127.0.0.1:12111/",
            "BOOKING_MAIL_BACKEND": "SMTP",
            "BOOKING_MAIL_DIR": "/srv/mail",
            "BOOKING_SMTP_HOST": "mail.example",
            "BOOKING_SMTP_PORT": "587",
            "BOOKING_SMTP_USERNAME": "me",
            "BOOKING_SMTP_PASSWORD": "secret",
            "BOOKING_SMTP_STARTTLS": "yes",
            "BOOKING_MAIL_FROM": "bookings@example.com",
            "BOOKING_PENDING_HOLD_MINUTES": "30",
            "BOOKING_MAX_UNPAID_PER_USER": "2",
            "BOOKING_RATE_LIMIT_PER_MINUTE": "0",
            "BOOKING_LOGIN_RATE_LIMIT_PER_MINUTE": "5",
            "BOOKING_INPROCESS_WORKER": "false",
            "BOOKING_DATABASE_REPLICA_URL": "postgresql://u@replica/booking",
            "BOOKING_REDIS_URL": "redis://cache:6379/2",
            "BOOKING_REDIS_NAMESPACE": "booking-eu",
            "BOOKING_DB_LOCK_TIMEOUT_MS": "750",
            "BOOKING_SECRET_KEY": "k" * 40,
            "BOOKING_SECRET_KEY_FILE": "/srv/booking/secret_key",
        },
        env_file=None,
    )

    assert settings == Settings(
        database_url="postgresql://u@db/booking",
        host="::1",
        port=9000,
        workers=4,
        payment_provider="stripe",
        stripe_secret_key="sk_test_123",
        stripe_publishable_key="pk_test_123",
        stripe_webhook_secret="whsec_x",
        stripe_api_base="http://127.0.0.1:12111",
        mail_backend="smtp",
        mail_dir=Path("/srv/mail"),
        smtp_host="mail.example",
        smtp_port=587,
        smtp_username="me",
        smtp_password="secret",
        smtp_starttls=True,
        mail_from="bookings@example.com",
        pending_hold_minutes=30,
        max_unpaid_per_user=2,
        rate_limit_per_minute=0,
        login_rate_limit_per_minute=5,
        inprocess_worker=False,
        database_replica_url="postgresql://u@replica/booking",
        redis_url="redis://cache:6379/2",
        redis_namespace="booking-eu",
        db_lock_timeout_ms=750,
        secret_key="k" * 40,
        secret_key_file=Path("/srv/booking/secret_key"),
    )


def test_env_file_is_read_and_the_real_environment_wins(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# local settings\n"
        "\n"
        "BOOKING_PORT=9001\n"
        "export BOOKING_HOST = 'localhost'\n"
        'BOOKING_MAIL_FROM="ops@example.com"  # quoted\n'
        "BOOKING_WORKERS=3 # inline comment\n"
        'BOOKING_SMTP_PASSWORD="p#ss \\"word\\""\n',
        encoding="utf-8",
    )

    settings = load_settings({"BOOKING_WORKERS": "2"}, env_file=env_file)

    assert settings.port == 9001
    assert settings.host == "localhost"
    assert settings.mail_from == "ops@example.com"
    assert settings.workers == 2
    assert settings.smtp_password == 'p#ss "word"'


def test_an_empty_value_means_the_default() -> None:
    assert load_settings({"BOOKING_PORT": "", "BOOKING_MAIL_BACKEND": "  "}, env_file=None) == Settings()


def test_a_missing_env_file_is_fine(tmp_path: Path) -> None:
    assert load_settings({}, env_file=tmp_path / ".env") == Settings()


def test_a_malformed_env_file_line_is_one_line_naming_the_file(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("BOOKING_PORT=1\nnot a setting\n", encoding="utf-8")

    with pytest.raises(ConfigError) as excinfo:
        read_env_file(env_file)

    assert str(excinfo.value) == f"{env_file}: line 2: expected KEY=VALUE, got 'not a setting'"


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("BOOKING_DATABASE_URL", "mysql://x", "must be sqlite:///PATH or postgresql://USER@HOST/DB"),
        ("BOOKING_PORT", "abc", "must be an integer from 1 to 65535"),
        ("BOOKING_PORT", "70000", "must be an integer from 1 to 65535"),
        ("BOOKING_WORKERS", "0", "must be an integer from 1 to 512"),
        ("BOOKING_PAYMENT_PROVIDER", "paypal", "must be one of stripe, sandbox"),
        ("BOOKING_STRIPE_PUBLISHABLE_KEY", "sk_live_x", "must be a key starting with pk_"),
        ("BOOKING_STRIPE_API_BASE", "localhost:12111", "must be an http:// or https:// URL"),
        ("BOOKING_MAIL_BACKEND", "pigeon", "must be one of smtp, file, console"),
        ("BOOKING_SMTP_PORT", "-1", "must be an integer from 1 to 65535"),
        ("BOOKING_SMTP_STARTTLS", "maybe", "must be true or false"),
        ("BOOKING_MAIL_FROM", "nobody", "must be an email address"),
        ("BOOKING_PENDING_HOLD_MINUTES", "0", "must be an integer from 1 to 10080"),
        ("BOOKING_MAX_UNPAID_PER_USER", "0", "must be an integer from 1 to 1000000"),
        ("BOOKING_MAX_UNPAID_PER_USER", "five", "must be an integer from 1 to 1000000"),
        ("BOOKING_RATE_LIMIT_PER_MINUTE", "-5", "must be an integer from 0 to 1000000000"),
        ("BOOKING_LOGIN_RATE_LIMIT_PER_MINUTE", "ten", "must be an integer from 0 to 1000000000"),
        ("BOOKING_INPROCESS_WORKER", "2", "must be true or false"),
        (
            "BOOKING_DATABASE_REPLICA_URL",
            "sqlite:///r.db",
            "must be a postgresql://USER@HOST/DB URL of a streaming replica",
        ),
        ("BOOKING_REDIS_URL", "cache:6379", "must be a redis://HOST:PORT/DB, rediss:// or unix:// URL"),
        ("BOOKING_REDIS_NAMESPACE", "a b", "must be 1 to 64 letters, digits or _ . : -"),
        ("BOOKING_DB_LOCK_TIMEOUT_MS", "0", "must be an integer from 1 to 86400000"),
        ("BOOKING_DB_LOCK_TIMEOUT_MS", "5s", "must be an integer from 1 to 86400000"),
    ],
)
def test_an_invalid_variable_gives_one_line_naming_it(variable: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError) as excinfo:
        load_settings({variable: value}, env_file=None)

    assert str(excinfo.value) == f"{variable}: {message}, got {value!r}"
    assert "\n" not in str(excinfo.value)


def test_a_bad_secret_key_is_named_but_not_echoed() -> None:
    with pytest.raises(ConfigError) as excinfo:
        load_settings({"BOOKING_STRIPE_SECRET_KEY": "pk_live_oops"}, env_file=None)

    assert str(excinfo.value) == "BOOKING_STRIPE_SECRET_KEY: must be a key starting with sk_ or rk_"


def test_stripe_needs_a_real_secret_key() -> None:
    with pytest.raises(ConfigError, match=r"^BOOKING_STRIPE_SECRET_KEY: must be set"):
        load_settings({"BOOKING_PAYMENT_PROVIDER": "stripe"}, env_file=None)


def test_an_invalid_value_in_the_env_file_names_the_variable(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("BOOKING_PORT=http\n", encoding="utf-8")

    with pytest.raises(ConfigError, match=r"^BOOKING_PORT: must be an integer from 1 to 65535, got 'http'$"):
        load_settings({}, env_file=env_file)


def test_forwarded_allow_ips_are_addresses_and_networks() -> None:
    # X-Forwarded-For is trusted from no peer unless the variable names it
    assert load_settings({}, env_file=None).forwarded_allow_ips == ()
    settings = load_settings({"BOOKING_FORWARDED_ALLOW_IPS": " 10.0.0.1, 10.1.0.0/16,::1 "}, env_file=None)
    assert settings.forwarded_allow_ips == ("10.0.0.1", "10.1.0.0/16", "::1")


@pytest.mark.parametrize(
    "value", ["*", "lb.internal", "10.0.0.1,", "10.0.0.0/33", "10.0.0.1/8", "10.0.0.256"]
)
def test_invalid_forwarded_allow_ips_give_one_line_naming_the_variable(value: str) -> None:
    with pytest.raises(ConfigError) as excinfo:
        load_settings({"BOOKING_FORWARDED_ALLOW_IPS": value}, env_file=None)

    message = str(excinfo.value)
    assert message.startswith(
        "BOOKING_FORWARDED_ALLOW_IPS: must be IP addresses or networks separated by commas"
    )


def test_the_public_url_defaults_to_the_local_service_and_loses_its_trailing_slash() -> None:
    assert load_settings({}, env_file=None).public_url == "http://127.0.0.1:8000"
    for given, kept in [
        ("https://booking.example.com/", "https://booking.example.com"),
        ("http://10.0.0.5:8080", "http://10.0.0.5:8080"),
        ("https://example.com/booking/", "https://example.com/booking"),
    ]:
        assert load_settings({"BOOKING_PUBLIC_URL": given}, env_file=None).public_url == kept


@pytest.mark.parametrize(
    "value",
    [
        "booking.example.com",  # no scheme
        "ftp://booking.example.com",
        "https://",  # no host
        "https://booking.example.com/?next=1",
        "https://booking.example.com/#top",
        "https://user@booking.example.com",
        "https://booking.example.com:99999",
        "https://booking.example.com:port",
        "https://booking.exa mple.com",
        "https://booking.example.com/\x01",
    ],
)
def test_an_invalid_public_url_stops_start_up_in_one_line(value: str) -> None:
    with pytest.raises(ConfigError) as excinfo:
        load_settings({"BOOKING_PUBLIC_URL": value}, env_file=None)

    message = str(excinfo.value)
    assert message.startswith("BOOKING_PUBLIC_URL: must be an http:// or https:// address")
    assert "\n" not in message
