"""``BOOKING_SECRET_KEY``: taken as set, or made once into ``var/secret_key`` (mode 0600) and shared by
every process that starts on the same directory, even when they start at the same moment."""

from __future__ import annotations

import multiprocessing
import stat
from pathlib import Path

import pytest

from entrypoints.config import ConfigError, Settings, load_settings
from entrypoints.secret_key import kept_secret_key, with_secret_key


def test_the_default_file_lies_beside_the_sqlite_default() -> None:
    settings = load_settings({}, env_file=None)

    assert settings.secret_key is None
    assert settings.secret_key_file == Path("var/secret_key")


def test_a_set_key_is_used_and_nothing_is_written(tmp_path: Path) -> None:
    path = tmp_path / "secret_key"
    settings = Settings(secret_key="s" * 32, secret_key_file=path)

    assert with_secret_key(settings).secret_key == "s" * 32
    assert not path.exists()


def test_a_short_key_is_refused_in_one_line_without_echoing_it() -> None:
    with pytest.raises(ConfigError) as excinfo:
        load_settings({"BOOKING_SECRET_KEY": "too-short"}, env_file=None)

    assert str(excinfo.value).startswith("BOOKING_SECRET_KEY: must be at least 32 characters")
    assert "too-short" not in str(excinfo.value)
    assert "\n" not in str(excinfo.value)


def test_unset_a_key_is_made_once_private_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "var" / "secret_key"

    first = with_secret_key(Settings(secret_key_file=path)).secret_key
    again = with_secret_key(Settings(secret_key_file=path)).secret_key

    assert first is not None
    assert len(first) >= 32
    assert again == first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["secret_key"]  # no candidate file left behind


def _race(path: str, start: multiprocessing.synchronize.Event, out: multiprocessing.Queue[str]) -> None:
    start.wait()
    out.put(kept_secret_key(Path(path)))


def test_processes_starting_at_once_agree_on_one_key(tmp_path: Path) -> None:
    path = tmp_path / "secret_key"
    context = multiprocessing.get_context("spawn")
    start, out = context.Event(), context.Queue()
    processes = [context.Process(target=_race, args=(str(path), start, out)) for _ in range(6)]
    for process in processes:
        process.start()
    start.set()
    keys = {out.get(timeout=60) for _ in processes}
    for process in processes:
        process.join(timeout=60)

    assert keys == {path.read_text().strip()}


def test_a_file_without_a_key_stops_start_up_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "secret_key"
    path.write_text("\n")

    with pytest.raises(ConfigError, match=r"^BOOKING_SECRET_KEY: .* holds no key"):
        with_secret_key(Settings(secret_key_file=path))


def test_a_directory_that_cannot_be_written_stops_start_up_in_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "var"
    blocker.write_text("a file where the directory should be")

    with pytest.raises(ConfigError, match=r"^BOOKING_SECRET_KEY: cannot keep a generated key in "):
        with_secret_key(Settings(secret_key_file=blocker / "secret_key"))
