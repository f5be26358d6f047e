"""Why a class refused something: one exception per answer, each with a message safe to show.

A message names only what the server itself validated (a well-formed code, a preset id), never
what a request carried, so it can be shown as text anywhere. The JSON API maps them to HTTP
(`app.classes.api`: 404, 403, 409, 422, 429); the pages map them to their own answers.
"""

from __future__ import annotations


class ClassRefused(Exception):
    """The base: `message` is the sentence a learner or instructor reads."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UnknownClass(ClassRefused):
    """No such class, or it has expired (an expired class is unknown before it is purged)."""

    def __init__(self, code: str) -> None:
        # `code` is a well-formed code or "" (app.classes.codes.normal_code): never raw input.
        super().__init__(
            f"There is no open class with code {code}: it may have expired, or the code is"
            " mistyped."
            if code
            else "That is not a class code: a code is six letters and digits, such as K7MPQ2."
        )
        self.code = code


class NotHost(ClassRefused):
    """An instructor action without the class's host key (or with a wrong one)."""

    def __init__(self) -> None:
        super().__init__("Only the instructor who opened this class can do that (wrong key).")


class UnknownQuestion(ClassRefused):
    """A question that is not one of the station's presets."""

    def __init__(self) -> None:
        super().__init__("question must be the id of one of the station's presets.")


class AlreadyRevealed(ClassRefused):
    """A prediction for a question whose answer the class has already seen."""

    def __init__(self, question: str) -> None:
        super().__init__(
            f"The answer to {question} has been revealed: predictions for it are closed."
        )
        self.question = question


class QuestionMoved(ClassRefused):
    """A prediction for a question the class is no longer on (a page left open too long)."""

    def __init__(self, question: str, current: str) -> None:
        super().__init__(
            f"The class has moved on from {question} to {current}: predict on {current}."
        )
        self.question = question
        self.current = current


class ClassFull(ClassRefused):
    """More learners on one question than a class holds."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"This question already has {limit} predictions, as many as a class holds."
        )


class RateLimited(ClassRefused):
    """Too many requests in the current window; `retry_after` is whole seconds to wait."""

    def __init__(self, what: str, retry_after: int) -> None:
        super().__init__(f"Too many {what}: try again in {retry_after} s.")
        self.retry_after = retry_after


class StorageUnavailable(ClassRefused):
    """The class database did not answer (PostgreSQL down, SQLite locked past its timeout)."""

    def __init__(self) -> None:
        super().__init__("The class storage is not answering: try again in a moment.")


class StorageFault(Exception):
    """What the class store could not do, said for the operator: the path (SQLite) or the
    server (PostgreSQL) and the cause, e.g. "The class store cannot write to
    /srv/var/classes.sqlite3: database or disk is full".

    Not a `ClassRefused`: a learner is told `StorageUnavailable`, whose `__cause__` this is,
    and the line is logged once where it happens (app/classes/database.py), since a path is
    the server's business, not the page's.
    """

    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.message = message
        self.where = where
