"""DateTimeOffset parsing and writing with 100-ns ticks (spec §2)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from rockskills_gui.core.model.timestamps import MIN_VALUE, Timestamp, TimestampError


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("2026-07-01T15:47:33.7001284+00:00", "2026-07-01T15:47:33.7001284+00:00"),
        ("2026-11-20T14:04:40.2201+00:00", "2026-11-20T14:04:40.2201+00:00"),
        ("2026-11-22T12:00:00+00:00", "2026-11-22T12:00:00+00:00"),
        ("2026-11-22T12:00:00.1200000+00:00", "2026-11-22T12:00:00.12+00:00"),
        ("2026-11-22T12:00:00.0000001+00:00", "2026-11-22T12:00:00.0000001+00:00"),
        ("2026-11-22T12:00:00Z", "2026-11-22T12:00:00+00:00"),
        ("2026-11-22T12:00:00.123456789Z", "2026-11-22T12:00:00.1234567+00:00"),
        ("2026-11-22T13:30:00+01:30", "2026-11-22T13:30:00+01:30"),
        ("2026-11-22T07:00:00-05:00", "2026-11-22T07:00:00-05:00"),
        ("2026-11-22", "2026-11-22T00:00:00+00:00"),
        ("2026-11-22T12:05", "2026-11-22T12:05:00+00:00"),
        ("0001-01-01T00:00:00+00:00", "0001-01-01T00:00:00+00:00"),
    ],
)
def test_parse_and_write(text: str, written: str) -> None:
    assert Timestamp.parse(text).isoformat() == written


@pytest.mark.parametrize(
    "text", ["2026-13-01T00:00:00Z", "2026-11-22 12:00:00Z", "yesterday", "2026-11-22T12:00:00+15:00",
             "2026-02-30T00:00:00Z", "2026-11-22T12:00:00.Z"],
)
def test_rejects_what_system_text_json_rejects(text: str) -> None:
    with pytest.raises(TimestampError):
        Timestamp.parse(text)


def test_instants_compare_across_offsets() -> None:
    a = Timestamp.parse("2026-11-22T13:30:00+01:30")
    b = Timestamp.parse("2026-11-22T12:00:00Z")
    assert a.utc_ticks == b.utc_ticks
    assert a != b  # exact identity keeps the written offset


def test_datetime_round_trip_and_now_is_utc() -> None:
    dt = datetime(2026, 11, 22, 12, 0, 0, 123456, tzinfo=UTC)
    ts = Timestamp.from_datetime(dt)
    assert ts.isoformat() == "2026-11-22T12:00:00.123456+00:00"
    assert ts.to_datetime() == dt
    assert Timestamp.now().isoformat().endswith("+00:00")
    assert MIN_VALUE.isoformat() == "0001-01-01T00:00:00+00:00"


def test_add_months_clamps_like_dotnet() -> None:
    assert Timestamp.parse("2026-11-22T12:00:00Z").add_months(-18).isoformat() == \
        "2025-05-22T12:00:00+00:00"
    assert Timestamp.parse("2026-03-31T08:00:00Z").add_months(-1).isoformat() == \
        "2026-02-28T08:00:00+00:00"
    assert Timestamp.parse("2024-03-31T08:00:00Z").add_months(-1).isoformat() == \
        "2024-02-29T08:00:00+00:00"


def test_whole_days_truncate_toward_zero() -> None:
    now = Timestamp.parse("2026-11-22T12:00:00Z")
    assert now.whole_days_since(Timestamp.parse("2026-11-21T12:00:00.0000001Z")) == 0
    assert now.whole_days_since(Timestamp.parse("2026-11-21T12:00:00Z")) == 1
    assert now.whole_days_since(Timestamp.parse("2026-11-23T11:00:00Z")) == 0  # -0.96 -> 0
    assert now.whole_days_since(Timestamp.parse("2026-11-24T13:00:00Z")) == -2
