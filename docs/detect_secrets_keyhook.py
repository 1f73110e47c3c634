"""A detect-secrets plugin for keyhook API keys: kp_ and 64 lowercase hex digits, the last 8
of which are the CRC-32 of the first 59 characters (docs/keys.md, "Checksums").

    detect-secrets scan --plugin docs/detect_secrets_keyhook.py [PATH...]

Every match is reported (a key issued before checksums has 8 random digits at the end, and
still works); one whose checksum is valid is marked verified ("is_verified": true), so
`--only-verified` keeps only the keys issued with a checksum. Nothing leaves the machine: the
check is the CRC. `keyhook keys scan` says whether a match is a key of your database.
"""
import re
import zlib

from detect_secrets.constants import VerifiedResult
from detect_secrets.plugins.base import RegexBasedDetector


def has_valid_checksum(token: str) -> bool:
    """kp_ + 64 lowercase hex, the last 8 the big-endian CRC-32 of the first 59 characters."""
    return (
        re.fullmatch(r"kp_[0-9a-f]{64}", token) is not None
        and f"{zlib.crc32(token[:59].encode('ascii')):08x}" == token[59:]
    )


class KeyhookApiKeyDetector(RegexBasedDetector):
    """Scans for keyhook API keys."""

    secret_type = "keyhook API key"

    # A longer run of hex digits is no key.
    denylist = [re.compile(r"kp_[0-9a-f]{64}(?![0-9a-f])")]

    def verify(self, secret: str) -> VerifiedResult:
        return VerifiedResult.VERIFIED_TRUE if has_valid_checksum(secret) else VerifiedResult.UNVERIFIED
