"""People: accounts (a name and a password), sessions (a browser's cookie), guests.

Every browser that uses the app gets a session: a random token in an HTTP-only,
SameSite cookie; the database keeps only the token's SHA-256, so a copy of the database
gives no one a session. A session is one of:

* a local player (no name): what a browser at ``hexstones serve`` gets without signing in;
* a guest under a chosen name (who joined a friend's game, say);
* signed in to an account (``users``: a name and an argon2id hash of the password).

Signing in or up gives the browser a new token (the old one stops working: no session
fixation) but keeps the session's row, so the seats a guest took stay theirs. Repeated
failed sign-ins of one name or from one address are slowed down (:class:`Throttle`).
Passwords are never stored, logged or echoed.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from confusable_homoglyphs import confusables

from hexstones.web import i18n
from hexstones.web.errors import WebError
from hexstones.web.rows import column_text

COOKIE = "hexstones_session"
SESSION_DAYS = 30  # a session unused this long expires (each use extends it)
SESSIONS_TOPIC = "sessions"  # the broker's topic of changed sessions (Accounts keeps the ones in use)
SESSION_MEMORY_SECONDS = 300  # a session in use is read again at least this often
MAX_SESSIONS_KNOWN = 100_000  # sessions kept in memory at most (then they are all read again)
BOT_SUFFIX = "-bot"  # the names of the AI's accounts (hexstones.web.bots) end so; no person's does
MAX_NAME = 40  # characters of a person's name
MIN_PASSWORD, MAX_PASSWORD = 8, 200  # characters
FREE_FAILURES = 3  # failed sign-ins of one name (or from one address) before they are slowed
MAX_DELAY = 300  # seconds: the longest wait imposed after repeated failures


_hasher = PasswordHasher()  # argon2id with the library's recommended costs


@dataclass(frozen=True)
class Identity:
    """Who is asking: a session, and the account it is signed in to (if any)."""

    session: str
    user: str | None = None
    name: str | None = None  # the account's or the guest's name; None for a local player
    token: str | None = None  # a bot's program: the id of the token it came with (hexstones.web.bot_accounts)

    @property
    def kind(self) -> str:
        return "account" if self.user else "guest" if self.name else "local"

    def public(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name}


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()



def check_name(name: Any) -> str:
    """A person's name: 1 to MAX_NAME printable characters on one line, spaces trimmed, not
    mixing scripts with letters that look alike (a Cyrillic "а" in "anna" would pass for
    another person: Unicode's confusables, TR39)."""
    if isinstance(name, str):
        name = unicodedata.normalize("NFC", name).strip()
        if 0 < len(name) <= MAX_NAME and all(unicodedata.category(c)[0] != "C" for c in name):
            if confusables.is_dangerous(name):
                raise WebError(400, "a name may not mix letters of different scripts that look "
                                    "alike (such as a Cyrillic 'а' among Latin letters): write it in one script")
            return name
    raise WebError(400, "a name is 1 to {most} printable characters on one line", most=MAX_NAME)


def name_key(name: str) -> str:
    """A name as names are compared (one account per key): case and compatibility forms folded."""
    return unicodedata.normalize("NFKC", name).casefold()


def check_password(password: Any) -> str:
    if isinstance(password, str) and MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        return password
    raise WebError(400, "a password is {low} to {high} characters", low=MIN_PASSWORD, high=MAX_PASSWORD)


class Throttle:
    """Failed sign-ins by key (a name, an address): after FREE_FAILURES, each further try
    must wait twice as long as the last (up to MAX_DELAY); a success forgets the name's
    failures. Kept in the database (``db``: a :class:`~hexstones.web.rows.Rows`), so every
    server process on it counts the same failures and a restart forgets none; a key with
    no failure for a day is forgotten.

    A try is counted as a failure before its password is checked (:meth:`reserve`, one
    transaction that locks the keys' rows), and given back if it succeeds
    (:meth:`succeeded`): guesses sent all at once are let through one at a time, not all
    checked against the count as it was before any of them failed."""

    FORGET_AFTER = 86400  # seconds without a failure

    def __init__(self, db, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    @staticmethod
    def delay(failures: int) -> float:
        return 0.0 if failures < FREE_FAILURES else min(2.0 ** (failures - FREE_FAILURES), MAX_DELAY)

    def reserve(self, keys: list[str]) -> None:
        """Count a try of ``keys`` as failed, or a 429 (counting nothing) if they must wait."""
        now = self.clock()
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM sign_in_failures WHERE last_failed < :old",
                       {"old": now - self.FORGET_AFTER})
            wait = 0.0
            for k in sorted(keys):  # one order for every process: no deadlock between two
                # An upsert that changes nothing: it makes the row and locks it.
                (row,) = tx.query(
                    "INSERT INTO sign_in_failures (key, failures, last_failed) VALUES (:key, 0, 0) "
                    "ON CONFLICT (key) DO UPDATE SET failures = sign_in_failures.failures "
                    "RETURNING failures, last_failed", {"key": k})
                wait = max(wait, float(row["last_failed"]) + self.delay(int(row["failures"])) - now)
            if wait > 0:
                raise WebError(429, "too many failed sign-ins: try again in {seconds} s", seconds=int(wait) + 1)
            for k in keys:
                tx.execute("UPDATE sign_in_failures SET failures = failures + 1, last_failed = :now "
                           "WHERE key = :key", {"key": k, "now": now})

    def succeeded(self, keys: list[str]) -> None:
        """The try of :meth:`reserve` succeeded: the first key's failures are forgotten, the
        others' reserved failure given back."""
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM sign_in_failures WHERE key = :key", {"key": keys[0]})
            for k in keys[1:]:
                tx.execute("UPDATE sign_in_failures SET failures = failures - 1 "
                           "WHERE key = :key AND failures > 0", {"key": k})


class Accounts:
    """Users and sessions in the games database (``db``: a :class:`~hexstones.web.rows.Rows`)."""

    def __init__(self, db, clock: Callable[[], float] = time.time, broker=None) -> None:
        self.db = db
        self.throttle = Throttle(db, clock)
        # Each request names its session: the sessions in use are kept in memory (by their
        # token's digest: the session and when it expires), so a request reads no row. A
        # change to a session (signed out, signed in, renamed, a password changed) is told
        # to every server process by ``broker`` (the store's) on :data:`SESSIONS_TOPIC`, and
        # forgotten there; and none is kept longer than :data:`SESSION_MEMORY_SECONDS`.
        self.broker = broker
        self.now: Callable[[], float] = time.time  # sessions expire in real time, whatever the app's clock
        self._known: dict[str, tuple[Identity, float, float]] = {}  # digest -> (who, expires, until)
        self._known_lock = threading.Lock()
        if broker is not None:
            broker.watch(SESSIONS_TOPIC, self._told)

    # -- sessions ---------------------------------------------------------------------

    def identify(self, token: str | None) -> Identity | None:
        """The session of a cookie's ``token``; None if there is none or it expired."""
        if not token or len(token) > 100:
            return None
        now = self.now()
        digest = _digest(token)
        with self._known_lock:
            known = self._known.get(digest)
        if known is not None and now < known[2] and now + (SESSION_DAYS - 1) * 86400 <= known[1]:
            return known[0]
        rows = self.db.query(
            "SELECT s.id, s.user_id, s.name AS guest, u.name AS account, s.expires FROM sessions s "
            "LEFT JOIN users u ON u.id = s.user_id WHERE s.token = :token", {"token": digest})
        if not rows:
            return None
        sid, user, guest, account, expires = (column_text(rows[0][k]) for k in ("id", "user_id", "guest", "account",
                                                                           "expires"))
        if float(expires) < now:
            return None
        if float(expires) < now + (SESSION_DAYS - 1) * 86400:  # extend a session in use, daily
            expires = now + SESSION_DAYS * 86400
            self.db.execute("UPDATE sessions SET expires = :e WHERE id = :id", {"e": expires, "id": sid})
        who = Identity(sid, user, account if user else guest)
        with self._known_lock:
            if len(self._known) >= MAX_SESSIONS_KNOWN:
                self._known.clear()
            self._known[digest] = (who, float(expires), now + SESSION_MEMORY_SECONDS)
        return who

    def _changed(self, *, session: str | None = None, user: str | None = None) -> None:
        """A session (or every session of ``user``) changed in the database: forgotten here
        at once, and in the other server processes when they hear of it."""
        self._told({"session": session, "user": user})
        if self.broker is not None:
            self.broker.publish(SESSIONS_TOPIC, {"session": session, "user": user})

    def _told(self, event: dict[str, Any]) -> None:
        with self._known_lock:
            if event.get("resync"):
                self._known.clear()
                return
            gone = [digest for digest, (who, _, _) in self._known.items()
                    if who.session == event.get("session") or (who.user and who.user == event.get("user"))]
            for digest in gone:
                del self._known[digest]

    def new_session(self, name: str | None = None) -> tuple[Identity, str]:
        """A new session (a local player, or a guest named ``name``) and its cookie token."""
        token = secrets.token_urlsafe(32)
        sid = secrets.token_hex(16)
        now = self.now()
        self.db.execute("DELETE FROM sessions WHERE expires < :now", {"now": now})  # the expired go
        self.db.execute(
            "INSERT INTO sessions (id, token, user_id, name, created, expires) "
            "VALUES (:id, :token, NULL, :name, :now, :expires)",
            {"id": sid, "token": _digest(token), "name": name, "now": now,
             "expires": now + SESSION_DAYS * 86400})
        return Identity(sid, None, name), token

    def _rotate(self, who: Identity | None, user: str | None, name: str | None) -> tuple[Identity, str]:
        """Give ``who``'s session (a new one if None) a new token, signed in to ``user``."""
        if who is None:
            who, _ = self.new_session()
        token = secrets.token_urlsafe(32)
        self.db.execute("UPDATE sessions SET token = :token, user_id = :user, name = :name, "
                        "expires = :expires WHERE id = :id",
                        {"token": _digest(token), "user": user, "name": None if user else name,
                         "expires": self.now() + SESSION_DAYS * 86400, "id": who.session})
        self._changed(session=who.session)
        return Identity(who.session, user, name), token

    def become_guest(self, who: Identity | None, name: Any) -> tuple[Identity, str | None]:
        """Name this browser's guest session (made if needed): (identity, new token or None)."""
        name = check_name(name)
        if who is not None and who.user:
            return who, None  # signed in: the account's name is the name
        if who is None:
            return self.new_session(name)
        self.db.execute("UPDATE sessions SET name = :name WHERE id = :id", {"name": name, "id": who.session})
        self._changed(session=who.session)
        return Identity(who.session, None, name), None

    def sign_out(self, who: Identity) -> None:
        self.db.execute("DELETE FROM sessions WHERE id = :id", {"id": who.session})
        self._changed(session=who.session)

    # -- accounts ---------------------------------------------------------------------

    def named(self, name: Any) -> tuple[str, str] | None:
        """The account called ``name`` (however it is cased or spaced): its id and its name
        as written; None if there is none."""
        if not isinstance(name, str) or len(name) > MAX_NAME * 4:
            return None
        rows = self.db.query("SELECT id, name FROM users WHERE name_key = :key", {"key": name_key(name.strip())})
        return (column_text(rows[0]["id"]), column_text(rows[0]["name"])) if rows else None

    def sign_up(self, who: Identity | None, name: Any, password: Any) -> tuple[Identity, str]:
        name = check_name(name)
        if name_key(name).endswith(BOT_SUFFIX):
            raise WebError(400, "names ending in {suffix} belong to the AI's accounts: choose another",
                           suffix=repr(BOT_SUFFIX))
        digest = _hasher.hash(check_password(password))
        user = secrets.token_hex(16)
        key = name_key(name)
        if self.db.query("SELECT 1 FROM users WHERE name_key = :key", {"key": key}):
            raise WebError(409, "that name is taken: choose another, or sign in")
        try:
            self.db.execute("INSERT INTO users (id, name, name_key, password, created) "
                            "VALUES (:id, :name, :key, :pw, :now)",
                            {"id": user, "name": name, "key": key, "pw": digest, "now": time.time()})
        except self.db.IntegrityError:  # taken between the look and the write
            raise WebError(409, "that name is taken: choose another, or sign in") from None
        return self._rotate(who, user, name)

    def sign_in(self, who: Identity | None, name: Any, password: Any, address: str) -> tuple[Identity, str]:
        if not isinstance(name, str) or not isinstance(password, str) or len(password) > MAX_PASSWORD:
            raise WebError(400, "give your name and password: {\"name\": ..., \"password\": ...}")
        key = name_key(name.strip())[:MAX_NAME * 4]
        keys = ["name:" + key, "address:" + address]
        self.throttle.reserve(keys)
        rows = self.db.query("SELECT id, name, password FROM users WHERE name_key = :key", {"key": key})
        stored = column_text(rows[0]["password"]) if rows else None
        try:
            if stored is None:
                _hasher.hash(password)  # as long as a real check: the time tells no name apart
                raise VerifyMismatchError()
            _hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            raise WebError(401, "wrong name or password") from None  # counted by reserve
        self.throttle.succeeded(keys)
        user, real_name = column_text(rows[0]["id"]), column_text(rows[0]["name"])
        if _hasher.check_needs_rehash(stored):
            self._set_password(user, password)
        return self._rotate(who, user, real_name)

    def language(self, user: str | None) -> str | None:
        """The language ``user``'s account reads the app in (None: none chosen, no account)."""
        if not user:
            return None
        rows = self.db.query("SELECT language FROM users WHERE id = :id", {"id": user})
        return i18n.known(column_text(rows[0]["language"])) if rows and rows[0]["language"] is not None else None

    def set_language(self, user: str, language: str) -> None:
        """Keep ``language`` (one of :func:`hexstones.web.i18n.languages`) with ``user``'s account."""
        self.db.execute("UPDATE users SET language = :language WHERE id = :id", {"language": language, "id": user})

    def change_password(self, who: Identity, old: Any, new: Any, address: str) -> tuple[Identity, str]:
        if not who.user:
            raise WebError(401, "sign in first")
        if not isinstance(old, str):
            raise WebError(400, "give the current password as 'old'")
        keys = ["user:" + who.user, "address:" + address]
        self.throttle.reserve(keys)
        rows = self.db.query("SELECT password FROM users WHERE id = :id", {"id": who.user})
        try:
            _hasher.verify(column_text(rows[0]["password"]), old)
        except (VerificationError, InvalidHashError, IndexError):
            raise WebError(403, "the current password is wrong") from None  # counted by reserve
        self.throttle.succeeded(keys)
        self._set_password(who.user, check_password(new))
        # Every other session of the account ends; this browser gets a new token.
        self.db.execute("DELETE FROM sessions WHERE user_id = :user AND id != :id",
                        {"user": who.user, "id": who.session})
        self._changed(user=who.user)
        return self._rotate(who, who.user, who.name)

    def _set_password(self, user: str, password: str) -> None:
        self.db.execute("UPDATE users SET password = :pw WHERE id = :id",
                        {"pw": _hasher.hash(password), "id": user})
