"""Outside engines' accounts: an account marked a bot, the tokens its program signs in with,
and who a token is.

An account becomes a bot only deliberately, and for good: at sign-up (``"bot": true``), or
later on its account page while it has played no game, its name typed again to confirm
(:meth:`BotAccounts.mark`). A bot account is an account like any other (ratings, profile,
games) that a program plays through ``hexstones bot`` or any client of the bot API
(docs/app.md, "Bots"). Its owner still signs in with its password, to make and revoke its
tokens; a token never makes or lists tokens itself, so a leaked token can be revoked and
gives no other.

A token (``hxb_`` and 43 random URL-safe characters) is shown once, when it is made; the
database keeps its SHA-256 only (``bot_tokens``, made by the migration r0011), with its
label, when it was made, last used and revoked. A request carries it as ``Authorization:
Bearer TOKEN``; a wrong, revoked or malformed one is a 401 that says so
(:meth:`BotAccounts.identify`). A request with such a header is the bot's, whatever cookie
it carries: the cookie is not read. Another scheme (a proxy's ``Basic``) is not a bot's,
and is left alone. The app's cross-site guard
(:mod:`hexstones.web.security`) lets a token's requests through because a program sends
no ``Origin``; a page of another site cannot send an ``Authorization`` header at all
(that needs a CORS preflight, which this app never grants), so a token cannot be used
from a victim's browser.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable
from typing import Any

from hexstones.web.accounts import Identity
from hexstones.web.errors import Phrase, WebError, shown
from hexstones.web.rows import column_text

TOKEN_PREFIX = "hxb_"  # tells a bot token apart from other secrets at a glance (and in leak scanners)
MAX_TOKENS = 10  # working tokens of one bot account at once
MAX_LABEL = 60  # characters of a token's label
MAX_TOKEN_TEXT = 200  # characters of an Authorization header's token worth hashing
TOUCH_SECONDS = 60.0  # a token's last use is written at most this often


def token_digest(token: str) -> str:
    """What the database keeps of a token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def is_bearer(authorization: str) -> bool:
    """Whether an ``Authorization`` header offers a token (``Bearer ...``): the bot API's."""
    return authorization.strip()[:6].lower() == "bearer"


def token_id(digest: str) -> str:
    """A token's public name on the account page (and in the path that revokes it): the
    head of its digest, which says nothing of the token."""
    return digest[:16]


class BotAccounts:
    """Bot accounts and their tokens in the games database (``db``: a
    :class:`~hexstones.web.rows.Rows`)."""

    def __init__(self, db, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    # -- bot accounts ------------------------------------------------------------------

    def is_bot(self, user: str | None) -> bool:
        """Whether ``user`` is an account marked a bot (an outside engine's)."""
        if not user:
            return False
        rows = self.db.query("SELECT bot FROM users WHERE id = :id", {"id": user})
        return bool(rows and rows[0]["bot"])

    def listing(self) -> list[tuple[str, str]]:
        """Every bot account: (id, name), by name."""
        rows = self.db.query("SELECT id, name FROM users WHERE bot = 1 ORDER BY name_key", {})
        return [(column_text(r["id"]), column_text(r["name"])) for r in rows]

    def mark(self, who: Identity | None, confirm: Any, played: bool) -> None:
        """Make ``who``'s account a bot, for good: ``confirm`` must be the account's name
        as written; refused (409) once it has played a game (``played``), or if it is one."""
        user = self.account_of(who, Phrase("mark an account as a bot"))
        if self.is_bot(user):
            raise WebError(409, "this account is a bot already")
        if not isinstance(confirm, str) or who is None or confirm.strip() != who.name:
            raise WebError(400, "to confirm, give the account's name exactly as it is written: "
                                '{"confirm": {name}}', name=json.dumps(who.name if who else ""))
        if played:
            raise WebError(409, "this account has played games as a person: a bot needs an account of "
                                "its own (sign up another, ticking 'this account is for a program')")
        self.set_bot(user)

    def set_bot(self, user: str) -> None:
        self.db.execute("UPDATE users SET bot = 1 WHERE id = :id", {"id": user})

    @staticmethod
    def account_of(who: Identity | None, what: str) -> str:
        """The account of a person signed in with a browser: 401 without one, 403 for a
        token (a token never manages tokens or accounts)."""
        if who is not None and who.token is not None:
            raise WebError(403, "a bot's token cannot {what}: sign in to the account in a browser", what=what)
        if who is None or not who.user:
            raise WebError(401, "sign in to the account to {what}", what=what)
        return who.user

    # -- tokens --------------------------------------------------------------------------

    def make_token(self, who: Identity | None, label: Any) -> dict[str, Any]:
        """A new token of ``who``'s bot account: its listing and, this once, the token."""
        user = self.account_of(who, Phrase("make tokens"))
        if not self.is_bot(user):
            raise WebError(403, "tokens belong to bot accounts: a program plays through an account of its "
                                "own, marked a bot at sign-up (or on its account page before its first game)")
        if label is None or label == "":
            label = "token"
        if not isinstance(label, str) or len(label.strip()) > MAX_LABEL or any(ord(c) < 32 for c in label):
            raise WebError(400, "a token's label is text of at most {most} characters on one line, "
                                "not {value}", most=MAX_LABEL, value=shown(label))
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        digest = token_digest(token)
        now = self.clock()
        with self.db.transaction() as tx:
            (row,) = tx.query("SELECT count(*) AS n FROM bot_tokens WHERE user_id = :user AND revoked IS NULL",
                              {"user": user})
            if int(row["n"]) >= MAX_TOKENS:
                raise WebError(409, "this bot has {most} working tokens, the most it may hold: revoke one "
                                    "before making another", most=MAX_TOKENS)
            tx.execute("INSERT INTO bot_tokens (digest, user_id, label, created, last_used, revoked) "
                       "VALUES (:digest, :user, :label, :now, NULL, NULL)",
                       {"digest": digest, "user": user, "label": label.strip() or "token", "now": now})
        return {"id": token_id(digest), "label": label.strip() or "token", "created": now, "last_used": None,
                "revoked": None, "token": token}

    def tokens(self, who: Identity | None) -> list[dict[str, Any]]:
        """The tokens of ``who``'s account, newest first: id, label, created, last used,
        revoked (never the token)."""
        user = self.account_of(who, Phrase("list tokens"))
        rows = self.db.query("SELECT digest, label, created, last_used, revoked FROM bot_tokens "
                             "WHERE user_id = :user ORDER BY created DESC, digest", {"user": user})
        return [{"id": token_id(column_text(r["digest"])), "label": column_text(r["label"]),
                 "created": r["created"], "last_used": r["last_used"], "revoked": r["revoked"]} for r in rows]

    def revoke(self, who: Identity | None, tid: str) -> dict[str, Any]:
        """Revoke the token ``tid`` of ``who``'s account (a 404 for none of its own); it
        stops working at once. Revoking a revoked token changes nothing."""
        user = self.account_of(who, Phrase("revoke tokens"))
        mine = [t for t in self.tokens(who) if t["id"] == tid]
        if not mine or len(tid) != len(token_id("0" * 64)):
            raise WebError(404, "this account has no token {token}", token=shown(tid))
        if mine[0]["revoked"] is None:
            now = self.clock()
            self.db.execute("UPDATE bot_tokens SET revoked = :now WHERE user_id = :user AND revoked IS NULL "
                            "AND digest LIKE :head", {"now": now, "user": user, "head": tid + "%"})
            mine[0]["revoked"] = now
        return mine[0]

    def working(self, tid: str | None) -> bool:
        """Whether the token ``tid`` (:func:`token_id`) still works (not revoked)."""
        if not tid:
            return False
        rows = self.db.query("SELECT 1 FROM bot_tokens WHERE digest LIKE :head AND revoked IS NULL",
                             {"head": tid + "%"})
        return bool(rows)

    def identify(self, authorization: str) -> Identity:
        """The bot account of an ``Authorization: Bearer TOKEN`` header; a 401 saying why
        for a malformed, unknown or revoked token."""
        scheme, _, token = authorization.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise WebError(401, "a bot's Authorization header is 'Bearer TOKEN', with a token of its account")
        if len(token) > MAX_TOKEN_TEXT:
            raise WebError(401, "this is not a token of this server: a bot's token is made on its account page")
        digest = token_digest(token)
        rows = self.db.query("SELECT t.user_id, t.last_used, t.revoked, u.name, u.bot FROM bot_tokens t "
                             "JOIN users u ON u.id = t.user_id WHERE t.digest = :digest", {"digest": digest})
        if not rows:
            raise WebError(401, "this is not a token of this server: check it, or make one on the bot "
                                "account's page")
        row = rows[0]
        if row["revoked"] is not None:
            raise WebError(401, "this token was revoked: make a new one on the bot account's page")
        now = self.clock()
        if row["last_used"] is None or float(row["last_used"]) < now - TOUCH_SECONDS:
            self.db.execute("UPDATE bot_tokens SET last_used = :now WHERE digest = :digest",
                            {"now": now, "digest": digest})
        return Identity(f"token:{token_id(digest)}", column_text(row["user_id"]), column_text(row["name"]),
                        token=token_id(digest))

