"""A class's join code and its instructor key.

The join code is read aloud and typed on a phone, so it uses only letters and digits that
cannot be mistaken for one another (no 0/O, 1/I/L); six of the 31 give ~887 million codes,
far more than a server ever holds at once, and a collision is simply drawn again
(`app.classes.store`). The host key is a bearer secret: 32 random bytes, shown once to the
instructor's browser and stored only as its SHA-256, so a copy of the database cannot act as
any instructor; it is compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LENGTH = 6
# What a code looks like: anything else in a path is refused without being echoed back.
CODE_SHAPE = re.compile(f"[{ALPHABET}]{{{LENGTH}}}")


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normal_code(text: str) -> str | None:
    """The code a learner typed (any case, surrounding spaces), or None if it is not one.
    Only ASCII is uppercased: "ß".upper() is "SS", which would turn "ßßß" into a code."""
    code = text.strip()
    if not code.isascii():
        return None
    code = code.upper()
    return code if CODE_SHAPE.fullmatch(code) else None


def new_host_key() -> str:
    return secrets.token_urlsafe(32)


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def key_matches(key: str, stored_hash: str) -> bool:
    return hmac.compare_digest(key_hash(key), stored_hash)
