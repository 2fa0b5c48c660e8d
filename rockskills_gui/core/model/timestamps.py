""".NET DateTimeOffset values with 100-ns precision, parsed and written as System.Text.Json does.

Python's ``datetime`` has microsecond resolution, so RockBot's 7-digit fractions
(``2026-07-01T15:47:33.7001284+00:00``) are kept as integer ticks. Spec: rockbot-skills.md §2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone

TICKS_PER_SECOND = 10_000_000
TICKS_PER_MINUTE = 60 * TICKS_PER_SECOND
TICKS_PER_DAY = 86_400 * TICKS_PER_SECOND
_EPOCH = datetime(1, 1, 1)

# System.Text.Json accepts the ISO 8601-1:2019 extended profile: date, optional time with
# optional seconds and fraction, optional 'Z' or +/-HH:MM offset.
_ISO_RE = re.compile(
    r"^(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})"
    r"(?:T(?P<h>\d{2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:\.(?P<f>\d{1,16}))?)?"
    r"(?P<off>Z|[+-]\d{2}:\d{2})?)?$",
    re.ASCII,  # .NET reads ASCII digits only
)
# The shape RockBot writes (UTC, 0-7 fraction digits): parsed without the general machinery.
_FAST_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
                      r"(?:\.([0-9]{1,7}))?\+00:00\Z")
_DAY_TICKS: dict[str, int] = {}  # "YYYY-MM-DD" -> ticks at midnight (bounded, see parse)


class TimestampError(ValueError):
    """Text that System.Text.Json could not read as a DateTimeOffset."""


@dataclass(frozen=True, slots=True)
class Timestamp:
    """A DateTimeOffset: local ticks (100 ns since 0001-01-01) and an offset in minutes.

    Equality is exact (same ticks and offset), so an untouched value always writes back
    to the same text. Use :meth:`utc_ticks` to compare instants.
    """

    ticks: int
    offset_minutes: int = 0

    # ---------------------------------------------------------------- construction

    @classmethod
    def parse(cls, text: str) -> Timestamp:
        """Parse the way System.Text.Json reads a DateTimeOffset (see module doc).

        A value without an offset is taken as UTC (RockBot hosts run in UTC; .NET would use
        the host's local zone).
        """
        fast = _FAST_RE.match(text)
        if fast is not None:
            day = _DAY_TICKS.get(text[:10])
            if day is None:
                try:
                    day = (date(int(fast[1]), int(fast[2]), int(fast[3])).toordinal() - 1) * TICKS_PER_DAY
                except ValueError:
                    day = -1  # not a date: the general path below raises the error
                if len(_DAY_TICKS) < 100_000:
                    _DAY_TICKS[text[:10]] = day
            hour, minute, second = int(fast[4]), int(fast[5]), int(fast[6])
            if day >= 0 and hour < 24 and minute < 60 and second < 60:
                frac = fast[7]
                return cls(day + (hour * 3600 + minute * 60 + second) * TICKS_PER_SECOND
                           + (int(frac.ljust(7, "0")) if frac else 0), 0)
        m = _ISO_RE.match(text)
        if not m:
            raise TimestampError(f"not an ISO 8601 date/time: {text!r}")
        try:
            base = datetime(int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"] or 0),
                            int(m["mi"] or 0), int(m["s"] or 0))
        except ValueError as exc:
            raise TimestampError(f"invalid date/time {text!r}: {exc}") from None
        fraction = (m["f"] or "")[:7].ljust(7, "0")
        ticks = _datetime_ticks(base) + int(fraction)
        offset = 0
        off = m["off"]
        if off and off != "Z":
            sign = -1 if off[0] == "-" else 1
            hours, minutes = int(off[1:3]), int(off[4:6])
            if hours > 14 or minutes > 59 or hours * 60 + minutes > 14 * 60:
                raise TimestampError(f"offset out of range in {text!r}")
            offset = sign * (hours * 60 + minutes)
        return cls(ticks, offset)

    @classmethod
    def from_datetime(cls, value: datetime) -> Timestamp:
        """From an aware datetime, keeping its offset (naive values are taken as UTC)."""
        offset = value.utcoffset() if value.tzinfo else timedelta(0)
        assert offset is not None
        local = value.replace(tzinfo=None)
        return cls(_datetime_ticks(local), int(offset.total_seconds() // 60))

    @classmethod
    def now(cls) -> Timestamp:
        """The current instant in UTC (what ``DateTimeOffset.UtcNow`` gives RockBot)."""
        return cls.from_datetime(datetime.now(UTC))

    @classmethod
    def from_utc_ticks(cls, ticks: int) -> Timestamp:
        return cls(ticks, 0)

    # ---------------------------------------------------------------- views

    @property
    def utc_ticks(self) -> int:
        """Ticks of the same instant in UTC (what DateTimeOffset compares)."""
        return self.ticks - self.offset_minutes * TICKS_PER_MINUTE

    def to_datetime(self) -> datetime:
        """An aware datetime (microsecond precision: sub-microsecond ticks are dropped)."""
        local = _EPOCH + timedelta(microseconds=self.ticks // 10)
        return local.replace(tzinfo=timezone(timedelta(minutes=self.offset_minutes)))

    def to_utc(self) -> Timestamp:
        return Timestamp(self.utc_ticks, 0)

    def isoformat(self) -> str:
        """The text System.Text.Json writes: trimmed 7-digit fraction, explicit offset."""
        seconds, frac = divmod(self.ticks, TICKS_PER_SECOND)
        base = _EPOCH + timedelta(seconds=seconds)
        text = f"{base.year:04d}-{base.month:02d}-{base.day:02d}T{base.hour:02d}:" \
               f"{base.minute:02d}:{base.second:02d}"
        if frac:
            text += "." + f"{frac:07d}".rstrip("0")
        sign = "-" if self.offset_minutes < 0 else "+"
        hours, minutes = divmod(abs(self.offset_minutes), 60)
        return f"{text}{sign}{hours:02d}:{minutes:02d}"

    def __str__(self) -> str:
        return self.isoformat()

    # ---------------------------------------------------------------- arithmetic

    def add_ticks(self, ticks: int) -> Timestamp:
        return Timestamp(self.ticks + ticks, self.offset_minutes)

    def add_days(self, days: float) -> Timestamp:
        return self.add_ticks(round(days * TICKS_PER_DAY))

    def add_months(self, months: int) -> Timestamp:
        """.NET AddMonths: same day clamped to the target month's length, time kept."""
        days, time_ticks = divmod(self.ticks, TICKS_PER_DAY)
        date = (_EPOCH + timedelta(days=days)).date()
        index = date.year * 12 + (date.month - 1) + months
        year, month0 = divmod(index, 12)
        month = month0 + 1
        day = min(date.day, _days_in_month(year, month))
        target = datetime(year, month, day)
        return Timestamp(_datetime_ticks(target) + time_ticks, self.offset_minutes)

    def total_days_since(self, earlier: Timestamp) -> float:
        """``(self - earlier).TotalDays`` as .NET computes it (double division)."""
        return (self.utc_ticks - earlier.utc_ticks) / float(TICKS_PER_DAY)

    def whole_days_since(self, earlier: Timestamp) -> int:
        """``(int)(self - earlier).TotalDays`` — truncated toward zero."""
        return int(self.total_days_since(earlier))


MIN_VALUE = Timestamp(0, 0)  # DateTimeOffset.MinValue: what a missing createdAt reads as


def _datetime_ticks(value: datetime) -> int:
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * TICKS_PER_SECOND + delta.microseconds * 10


def _days_in_month(year: int, month: int) -> int:
    if month == 12:
        return 31
    return (datetime(year, month + 1, 1) - datetime(year, month, 1)).days
